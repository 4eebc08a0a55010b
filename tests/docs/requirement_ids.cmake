# Requirement ids are defined in docs/requirements.md, and nowhere else a reader can see.
#
#   cmake -DSOURCE_DIR=<the source tree> -P tests/docs/requirement_ids.cmake
#
# Fails (and prints file:line for each) when
#   - a file of the tree cites an id (two capital letters at most, a hyphen, a number: the
#     catalogue's `G-24` shape, as a whole word) that docs/requirements.md does not define;
#   - docs/requirements.md defines an id twice;
#   - docs/requirements.md names a file or folder of the tree (in backquotes, like
#     `host/mcp/catalog.cpp`) that does not exist, so the map follows the code when it moves.
# An id is defined by a table row that starts with it: `| G-24 | … | … |`.
cmake_minimum_required(VERSION 3.25)
if(NOT SOURCE_DIR)
  get_filename_component(SOURCE_DIR "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
endif()
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")

set(catalogue "${SOURCE_DIR}/docs/requirements.md")
if(NOT EXISTS "${catalogue}")
  message(FATAL_ERROR "docs/requirements.md is missing")
endif()

set(problems 0)

# 1. The ids the catalogue defines (and those it defines twice).
file(READ "${catalogue}" text)
coffer_docs_lines(lines "${text}")
set(defined "")
set(n 0)
foreach(line IN LISTS lines)
  math(EXPR n "${n} + 1")
  if(line MATCHES "^\\| *([A-Z][A-Z]?-[0-9]+) *\\|")
    set(id "${CMAKE_MATCH_1}")
    if(id IN_LIST defined)
      message("docs/requirements.md:${n}: ${id} is defined twice")
      math(EXPR problems "${problems} + 1")
    endif()
    list(APPEND defined "${id}")
  endif()
  # 3. Paths it names must exist.
  string(REGEX MATCHALL "`(host|cli|shim|plugins|sdk|tests|docs|schemas|examples|scripts|cmake)/[^` ]*`" paths "${line}")
  foreach(p IN LISTS paths)
    string(REGEX REPLACE "^`(.*)`$" "\\1" p "${p}")
    string(REGEX REPLACE "/$" "" p "${p}")
    if(NOT EXISTS "${SOURCE_DIR}/${p}")
      message("docs/requirements.md:${n}: names `${p}`, which does not exist")
      math(EXPR problems "${problems} + 1")
    endif()
  endforeach()
endforeach()
list(LENGTH defined count)
if(count EQUAL 0)
  message(FATAL_ERROR "docs/requirements.md defines no id (rows like `| G-24 | summary | where |`)")
endif()

# 2. Every id cited in the tree must be defined. A "word" is a run of letters, digits and `_`;
#    an id is a word of one or two capitals, a hyphen and digits, with no word character on
#    either side (so UTF-8, SHA-256 and x_G-1 are not ids, as with grep's \b).
coffer_docs_files(files "${SOURCE_DIR}"
  "(\\.(c|cc|cpp|h|hpp|cmake|in|md|txt|mjs|js|json|sh|map|toml|ya?ml)|/CMakeLists\\.txt|/Makefile|/\\.ci/run)$")
set(word_re "[A-Za-z0-9_]+-[0-9]+[A-Za-z0-9_]*")
set(id_re "^[A-Z][A-Z]?-[0-9]+$")
set(cited 0)
foreach(f IN LISTS files)
  file(READ "${f}" text)
  string(REGEX MATCHALL "${word_re}" words "${text}")
  set(unknown FALSE)
  foreach(w IN LISTS words)
    if(w MATCHES "${id_re}")
      math(EXPR cited "${cited} + 1")
      if(NOT w IN_LIST defined)
        set(unknown TRUE)
      endif()
    endif()
  endforeach()
  if(NOT unknown)
    continue()
  endif()
  # Only a file with an unknown id is cut into lines, to say where.
  coffer_docs_relative(rel "${SOURCE_DIR}" "${f}")
  coffer_docs_lines(lines "${text}")
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    string(REGEX MATCHALL "${word_re}" words "${line}")
    foreach(w IN LISTS words)
      if(w MATCHES "${id_re}" AND NOT w IN_LIST defined)
        message("${rel}:${n}: ${w} is not defined in docs/requirements.md")
        math(EXPR problems "${problems} + 1")
      endif()
    endforeach()
  endforeach()
endforeach()

list(LENGTH files scanned)
if(problems GREATER 0)
  message(FATAL_ERROR "${problems} problem(s). Define each id in docs/requirements.md (a row "
    "`| ID | what it asks | where it is |`), or explain the requirement in words instead of citing it.")
endif()
message(STATUS "requirement ids: ${count} defined, ${cited} citations in ${scanned} files, all defined")
