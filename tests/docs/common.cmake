# Shared by the docs checks (run with `cmake -P`, no compiler needed): which files of the source
# tree they read, and how a file is cut into lines.

# coffer_docs_files(<out-var> <source-dir> <regex of file names to keep>)
# Every file under the folders that make up the product and its docs, minus what is not ours:
# node_modules/ (npm packages of the Node.js tests), package-lock.json, fuzz corpora (random
# bytes) and build trees inside the source tree.
function(coffer_docs_files out source_dir keep_regex)
  set(files "")
  foreach(top host cli shim plugins sdk tests docs examples schemas scripts cmake .ci)
    if(IS_DIRECTORY "${source_dir}/${top}")
      file(GLOB_RECURSE found LIST_DIRECTORIES false "${source_dir}/${top}/*")
      list(APPEND files ${found})
    endif()
  endforeach()
  foreach(name README.md CMakeLists.txt Makefile)
    if(EXISTS "${source_dir}/${name}")
      list(APPEND files "${source_dir}/${name}")
    endif()
  endforeach()
  list(FILTER files EXCLUDE REGEX "/node_modules/|/package-lock\\.json$|/corpus/|/CMakeFiles/|/_deps/")
  list(FILTER files INCLUDE REGEX "${keep_regex}")
  list(SORT files)
  set(${out} "${files}" PARENT_SCOPE)
endfunction()

# coffer_docs_lines(<out-var> <text>)
# The text as a CMake list with one element per line (empty lines kept, so an element's index + 1
# is its line number). `;`, `[` and `]` would confuse CMake's lists, so they become spaces first:
# the checks look only for ids and link targets, which never contain them.
function(coffer_docs_lines out text)
  string(REGEX REPLACE "[][;]" " " text "${text}")
  string(REPLACE "\r" "" text "${text}")
  string(REPLACE "\n" ";" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# coffer_docs_relative(<out-var> <source-dir> <file>)
function(coffer_docs_relative out source_dir file)
  file(RELATIVE_PATH rel "${source_dir}" "${file}")
  set(${out} "${rel}" PARENT_SCOPE)
endfunction()
