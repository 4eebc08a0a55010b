# Relative links in the Markdown files of the tree point at something that exists.
#
#   cmake -DSOURCE_DIR=<the source tree> -P tests/docs/relative_links.cmake
#
# Reads README.md and every .md file under the product and docs folders (docs/, docs/decisions/,
# plugins/*/README.md, …). For each inline link `[text](target)` whose target is not a URL
# (`scheme:`) or an anchor in the same page (`#…`), the file or folder named by target (without
# its `#anchor`), relative to the Markdown file, must exist; each one that does not is printed
# as file:line. Anchors themselves are not checked.
cmake_minimum_required(VERSION 3.25)
if(NOT SOURCE_DIR)
  get_filename_component(SOURCE_DIR "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
endif()
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")

coffer_docs_files(files "${SOURCE_DIR}" "\\.md$")
set(problems 0)
set(checked 0)
foreach(f IN LISTS files)
  file(READ "${f}" text)
  if(NOT text MATCHES "\\]\\(")
    continue()
  endif()
  get_filename_component(dir "${f}" DIRECTORY)
  coffer_docs_relative(rel "${SOURCE_DIR}" "${f}")
  # `]` is blanked by coffer_docs_lines: mark where a link target starts first.
  string(REPLACE "](" "LINK~(" text "${text}")
  coffer_docs_lines(lines "${text}")
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    string(REGEX MATCHALL "LINK~\\(([^() ]+)( \"[^\"]*\")?\\)" links "${line}")
    foreach(link IN LISTS links)
      string(REGEX REPLACE "^LINK~\\(([^() ]+).*$" "\\1" target "${link}")
      if(target MATCHES "^[A-Za-z][A-Za-z0-9+.-]*:" OR target MATCHES "^#")
        continue()
      endif()
      string(REGEX REPLACE "#.*$" "" path "${target}")
      math(EXPR checked "${checked} + 1")
      if(NOT EXISTS "${dir}/${path}")
        message("${rel}:${n}: broken link to `${target}`")
        math(EXPR problems "${problems} + 1")
      endif()
    endforeach()
  endforeach()
endforeach()

if(problems GREATER 0)
  message(FATAL_ERROR "${problems} broken relative link(s) in the Markdown files")
endif()
list(LENGTH files scanned)
message(STATUS "relative links: ${checked} checked in ${scanned} Markdown files, none broken")
