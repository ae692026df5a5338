# The SimGrid SMPI build (included by the top-level CMakeLists.txt when
# PAPC_SMPI is ON; the library and every tool are already defined there).
# Nothing else is built: no drop-in layer (LD_PRELOAD has no meaning inside
# a simulation), no tests (they run under the native build), no examples.
if(NOT CMAKE_C_COMPILER MATCHES "smpicc")
  message(FATAL_ERROR "PAPC_SMPI needs CMAKE_C_COMPILER=smpicc "
          "(got ${CMAKE_C_COMPILER}); use `make smpi`")
endif()
message(STATUS "papcoll: SMPI build, papcoll linked statically into each tool")
