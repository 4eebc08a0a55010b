// coffer-daemon: the host. Everything lives in the coffer_daemon library.
#include "daemon/app.hpp"

int main(int argc, char** argv) { return coffer::daemon::run_main(argc, argv); }
