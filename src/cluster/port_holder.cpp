#include "cluster/port_holder.hpp"

#include <dirent.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace eagle::cluster {
namespace {

constexpr const char* kListenState = "0A";  // TCP_LISTEN in /proc/net/tcp

// The socket inodes listening on `port`, from one /proc/net/tcp{,6} table. A row:
// "sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode".
void add_listening_inodes(const char* table, int port, std::set<std::string>& inodes) {
  std::ifstream file(table);
  std::string line;
  std::getline(file, line);  // the header
  while (std::getline(file, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
    if (!(fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
          timeout >> inode)) {
      continue;
    }
    auto colon = local.rfind(':');
    if (colon == std::string::npos || state != kListenState) continue;
    if (std::stoi(local.substr(colon + 1), nullptr, 16) == port) inodes.insert(inode);
  }
}

std::string read_first_line(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

}  // namespace

std::optional<std::string> describe_port_holder(int port) {
  std::set<std::string> inodes;
  add_listening_inodes("/proc/net/tcp", port, inodes);
  add_listening_inodes("/proc/net/tcp6", port, inodes);
  if (inodes.empty()) return std::nullopt;
  DIR* processes = opendir("/proc");
  if (processes == nullptr) return std::nullopt;
  std::optional<std::string> holder;
  while (!holder) {
    dirent* process = readdir(processes);
    if (process == nullptr) break;
    std::string pid = process->d_name;
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string fd_folder = "/proc/" + pid + "/fd";
    DIR* fds = opendir(fd_folder.c_str());
    if (fds == nullptr) continue;  // another user's process, or one that just ended
    while (dirent* fd = readdir(fds)) {
      char target[64];
      std::string link = fd_folder + "/" + fd->d_name;
      ssize_t size = readlink(link.c_str(), target, sizeof(target) - 1);
      if (size <= 0) continue;
      std::string socket(target, static_cast<std::size_t>(size));
      // "socket:[123456]"
      if (socket.size() > 9 && socket.compare(0, 8, "socket:[") == 0 &&
          inodes.count(socket.substr(8, socket.size() - 9)) > 0) {
        holder = "process " + pid + " (" + read_first_line("/proc/" + pid + "/comm") + ")";
        break;
      }
    }
    closedir(fds);
  }
  closedir(processes);
  return holder;
}

}  // namespace eagle::cluster
