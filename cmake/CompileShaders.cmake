# Finds a GLSL compiler that knows GL_KHR_cooperative_matrix, checks it with a try-compile, and
# provides vkconv_compile_shaders(): each shader becomes SPIR-V at build time and is embedded in
# the library as a C++ array (see EmbedSpirv.cmake).

set(VKCONV_DEPS_PREFIX "$ENV{VKCONV_DEPS_PREFIX}" CACHE PATH "Prefix made by scripts/setup.sh")
if(NOT VKCONV_DEPS_PREFIX AND EXISTS /opt/vkconv-deps)
  set(VKCONV_DEPS_PREFIX /opt/vkconv-deps CACHE PATH "" FORCE)
endif()

find_program(VKCONV_GLSLANG NAMES glslangValidator glslang
  HINTS ${VKCONV_DEPS_PREFIX}/bin $ENV{VULKAN_SDK}/bin NO_DEFAULT_PATH)
find_program(VKCONV_GLSLANG NAMES glslangValidator glslang)
if(NOT VKCONV_GLSLANG)
  message(FATAL_ERROR "vkconv: no GLSL compiler found. Install glslang >= 14 (glslangValidator), "
    "for example from the LunarG Vulkan SDK or a newer distribution, or run scripts/setup.sh as root "
    "on Debian 12, which builds glslang 15 into /opt/vkconv-deps.")
endif()

# The try-compile: a cooperative-matrix shader must compile for Vulkan 1.3.
set(_probe "${CMAKE_BINARY_DIR}/vkconv_probe_coopmat.comp")
file(WRITE "${_probe}" "#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 32) in;
layout(binding = 0) buffer B { float16_t x[]; };
void main() {
  coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a;
  coopMatLoad(a, x, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
  coopMatStore(a, x, 256, 16, gl_CooperativeMatrixLayoutRowMajor);
}
")
execute_process(COMMAND ${VKCONV_GLSLANG} -V --target-env vulkan1.3 "${_probe}" -o "${_probe}.spv"
  RESULT_VARIABLE _probe_result OUTPUT_VARIABLE _probe_out ERROR_VARIABLE _probe_out)
if(NOT _probe_result EQUAL 0)
  message(FATAL_ERROR "vkconv: ${VKCONV_GLSLANG} cannot compile GL_KHR_cooperative_matrix shaders "
    "(glslang >= 14 is needed; Debian 12's glslang 12 is too old). Install a newer glslang (LunarG "
    "Vulkan SDK, or scripts/setup.sh on Debian 12) and pass -DVKCONV_GLSLANG=/path/to/glslangValidator.\n"
    "${_probe_out}")
endif()
message(STATUS "vkconv: GLSL compiler ${VKCONV_GLSLANG} compiles cooperative-matrix shaders")

# vkconv_compile_shaders(OUT_VAR NAME SOURCE [DEFINES...]): NAME.spv from SOURCE with -D flags.
function(vkconv_compile_shader out_var name source)
  set(spv "${CMAKE_BINARY_DIR}/shaders/${name}.spv")
  set(defines)
  foreach(d ${ARGN})
    list(APPEND defines "-D${d}")
  endforeach()
  file(GLOB_RECURSE includes "${PROJECT_SOURCE_DIR}/src/kernels/*.glsl")
  add_custom_command(OUTPUT "${spv}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${CMAKE_BINARY_DIR}/shaders"
    COMMAND ${VKCONV_GLSLANG} -V --target-env vulkan1.3 ${defines} -I${PROJECT_SOURCE_DIR}/src/kernels/common
            "${source}" -o "${spv}"
    DEPENDS "${source}" ${includes}
    COMMENT "GLSL -> SPIR-V: ${name}"
    VERBATIM)
  set(${out_var} "${spv}" PARENT_SCOPE)
endfunction()
