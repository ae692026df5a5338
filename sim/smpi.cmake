# The SimGrid SMPI build (included by the top-level CMakeLists.txt when
# PAPC_SMPI is ON; the library and every tool are already defined there).
# Nothing else is built: no drop-in layer (LD_PRELOAD has no meaning inside
# a simulation), no tests (they run under the native build); of the
# examples, the parallel FFT (C, FFTW), to run issue 14's application with a
# core per simulated host (docs/performance.md, "The FFT in simulation").
if(NOT CMAKE_C_COMPILER MATCHES "smpicc")
  message(FATAL_ERROR "PAPC_SMPI needs CMAKE_C_COMPILER=smpicc "
          "(got ${CMAKE_C_COMPILER}); use `make smpi`")
endif()
message(STATUS "papcoll: SMPI build, papcoll linked statically into each tool")

# The check that static linking gives each simulated rank its own papcoll
# globals, and its control: the same program against a shared libpapcoll
# (built from the same position-independent objects), where SMPI shares the
# library's globals among the ranks, so the check must report it.
add_executable(papc-smpi-privcheck sim/privatization_check.c)
target_link_libraries(papc-smpi-privcheck PRIVATE papcoll papc_model m)
add_library(papcoll_smpi_shared SHARED $<TARGET_OBJECTS:papcoll>)
target_include_directories(papcoll_smpi_shared PUBLIC ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(papcoll_smpi_shared PRIVATE papc_topo papc_model m)
if(TARGET papc_clv)
  target_link_libraries(papcoll_smpi_shared PRIVATE papc_clv)
endif()
add_executable(papc-smpi-privcheck-shared sim/privatization_check.c)
target_link_libraries(papc-smpi-privcheck-shared PRIVATE papcoll_smpi_shared)
set_target_properties(papc-smpi-privcheck-shared PROPERTIES
  BUILD_RPATH ${CMAKE_BINARY_DIR}/lib)

# The parallel FFT with a master, when FFTW is there (sim/fft.sh runs it).
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(FFTW3 QUIET IMPORTED_TARGET fftw3)
endif()
if(FFTW3_FOUND)
  add_executable(fft_master examples/fft/fft_master.c)
  target_link_libraries(fft_master PRIVATE papcoll papc_model PkgConfig::FFTW3 m)
  if(TARGET papc_clv)
    target_link_libraries(fft_master PRIVATE papc_clv)
  endif()
endif()
