# CPack: `cpack -G DEB` in the build folder makes coffer_<version>_<arch>.deb for Debian 12
# (prefix /usr; dependencies from dpkg-shlibdeps). Only what `install()` names goes in — the
# test programs never do. docs/packaging.md describes the layout and the checks
# (tests/packaging/deb_test.sh installs and removes it in a scratch root).
set(CPACK_PACKAGE_NAME coffer)
set(CPACK_PACKAGE_VENDOR "Coffer")
set(CPACK_PACKAGE_CONTACT "Coffer maintainers <coffer@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Local-first vault and MCP gateway daemon for AI coding agents")
set(CPACK_PACKAGE_DESCRIPTION "Coffer keeps the MCP servers, credentials, skills, knowledge bases and chats of AI coding agents in one local vault, served by a loopback daemon with a web console and Prometheus metrics.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Knowledge-base regex search runs ripgrep; stdio MCP servers are often npx/uvx programs.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "ripgrep")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "nodejs, npm, chromium")
set(CPACK_STRIP_FILES ON)
set(CPACK_SOURCE_GENERATOR "")
include(CPack)
