"""The small Keras 3 model of the .keras fixture (gen_keras_model_fixture.py): every layer class
eagle's load_model builds, with settings other than the defaults where eagle has them."""
import keras


def build_model():
    return keras.Sequential([
        keras.Input((6, 6, 1), name="pixels"),
        keras.layers.Conv2D(3, (3, 2), strides=(1, 1), padding="same", activation="relu",
                            name="conv"),
        keras.layers.BatchNormalization(momentum=0.9, epsilon=0.01, name="norm"),
        keras.layers.MaxPooling2D(2, strides=1, name="max_pool"),
        keras.layers.AveragePooling2D(2, padding="same", name="avg_pool"),
        keras.layers.Dropout(0.25, seed=3, name="drop"),
        keras.layers.Activation("tanh", name="squash"),
        keras.layers.Flatten(name="flat"),
        keras.layers.Dense(4, activation="elu", use_bias=False, name="hidden"),
        keras.layers.Dense(3, activation="softmax", name="probabilities"),
    ], name="small_model")
