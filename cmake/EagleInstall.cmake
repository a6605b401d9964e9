# Installation and the package config: find_package(eagle CONFIG) -> eagle::eagle.
include(CMakePackageConfigHelpers)

install(TARGETS eagle eagle_xtensor EXPORT eagleTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/eagle DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT eagleTargets NAMESPACE eagle:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/eagle)

configure_package_config_file(cmake/eagleConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/eagleConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/eagle)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/eagleConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/eagleConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/eagleConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/eagle)
