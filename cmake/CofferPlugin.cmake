# coffer_add_plugin(<target> SOURCES ... [LIBRARIES ...] [MANIFEST file] [OUTPUT_DIR dir] [NO_INSTALL])
# Builds a kind plugin as a MODULE library with hidden visibility and no undefined symbols, and
# copies its sidecar manifest (<name>.plugin.json) beside it, byte for byte (never parsed).
# Works both inside the Coffer tree and from the installed CofferSdk package.
function(coffer_add_plugin target)
  cmake_parse_arguments(P "NO_INSTALL" "MANIFEST;OUTPUT_DIR" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT P_OUTPUT_DIR)
    set(P_OUTPUT_DIR ${COFFER_PLUGIN_OUTPUT_DIR})
  endif()
  if(NOT P_OUTPUT_DIR)
    set(P_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  if(NOT COFFER_PLUGIN_SUBDIR)
    set(COFFER_PLUGIN_SUBDIR lib/coffer/plugins)
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
    get_filename_component(manifest ${P_MANIFEST} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    get_filename_component(mname ${manifest} NAME)
    # Relink (and so re-copy) when only the manifest changed.
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${manifest})
    add_custom_command(TARGET ${target} POST_BUILD
      COMMAND ${CMAKE_COMMAND} -E copy_if_different ${manifest} $<TARGET_FILE_DIR:${target}>/${mname})
    if(NOT P_NO_INSTALL)
      install(FILES ${manifest} DESTINATION ${COFFER_PLUGIN_SUBDIR})
    endif()
  endif()
  if(NOT P_NO_INSTALL)
    install(TARGETS ${target} LIBRARY DESTINATION ${COFFER_PLUGIN_SUBDIR})
  endif()
endfunction()
