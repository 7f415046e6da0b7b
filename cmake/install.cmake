# `cmake --install` gives a CMake package: find_package(fattn) then link fattn::fattn.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS fattn EXPORT fattnTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/fattn DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT fattnTargets NAMESPACE fattn:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fattn)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/fattnConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/fattnConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fattn)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/fattnConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/fattnConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/fattnConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fattn)
if(TARGET fattn_cli)
  install(TARGETS fattn_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
