# coffer_add_plugin(<target> SOURCES ... [MANIFEST file] [OUTPUT_DIR dir] [NO_INSTALL])
# Builds a kind plugin as a MODULE library with hidden visibility and no undefined symbols, and
# copies its sidecar manifest (<name>.plugin.json) beside it.
function(coffer_add_plugin target)
  cmake_parse_arguments(P "NO_INSTALL" "MANIFEST;OUTPUT_DIR" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT P_OUTPUT_DIR)
    set(P_OUTPUT_DIR ${COFFER_PLUGIN_OUTPUT_DIR})
  endif()
  add_library(${target} MODULE ${P_SOURCES})
  target_link_libraries(${target} PRIVATE coffer_sdk ${P_LIBRARIES})
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${P_OUTPUT_DIR})
  target_link_options(${target} PRIVATE -Wl,--no-undefined)
  if(P_MANIFEST)
    get_filename_component(mname ${P_MANIFEST} NAME)
    add_custom_command(TARGET ${target} POST_BUILD
      COMMAND ${CMAKE_COMMAND} -E copy_if_different ${P_MANIFEST} ${P_OUTPUT_DIR}/${mname})
    if(NOT P_NO_INSTALL)
      install(FILES ${P_MANIFEST} DESTINATION ${COFFER_PLUGIN_SUBDIR})
    endif()
  endif()
  if(NOT P_NO_INSTALL)
    install(TARGETS ${target} LIBRARY DESTINATION ${COFFER_PLUGIN_SUBDIR})
  endif()
endfunction()
