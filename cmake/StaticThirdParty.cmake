# coffer_link_third_party_statically(<target>): links an executable with its own copy of the
# third-party libraries the CLI uses (Boost.JSON and Boost.Container, SQLite, OpenSSL's libcrypto)
# and of libstdc++/libgcc, leaving only glibc shared. A short-lived process then spends no time
# resolving symbols across shared objects at start-up: ~6 ms less per `coffer` command on the
# two-core build machine (ADR 0043). The archives go in whole, right after the target's own
# libraries, so every symbol of theirs is defined in the executable and the shared copies named
# later on the link line (by Boost::json, SQLite::SQLite3, OpenSSL::Crypto) are dropped by
# --as-needed: one copy of each library, never a mix. Sanitized builds and machines without the
# static archives keep the shared libraries.
function(coffer_link_third_party_statically target)
  if(COFFER_SANITIZE)
    return()  # ASan must interpose operator new; a static libstdc++ would bypass it
  endif()
  set(archives)
  foreach(name boost_json boost_container sqlite3 crypto)
    find_library(COFFER_STATIC_${name} NAMES lib${name}.a)
    if(NOT COFFER_STATIC_${name})
      message(STATUS "${target}: lib${name}.a not found; linking the shared libraries")
      return()
    endif()
    list(APPEND archives ${COFFER_STATIC_${name}})
  endforeach()
  target_link_libraries(${target} PRIVATE "-Wl,--push-state,--whole-archive" ${archives} "-Wl,--pop-state"
                        ${CMAKE_DL_LIBS} Threads::Threads m)
  target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc)
endfunction()
