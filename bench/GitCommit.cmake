# Writes OUTPUT (a header defining VKCONV_GIT_COMMIT) from COMMIT if given, else from
# `git rev-parse --short HEAD` in SOURCE_DIR ("-dirty" appended when tracked files differ from
# HEAD; "unknown" without git). Runs on every build; rewrites the header only when it changes.
set(commit "${COMMIT}")
if(commit STREQUAL "")
  set(commit "unknown")
  if(GIT AND EXISTS "${SOURCE_DIR}/.git")
    execute_process(COMMAND "${GIT}" rev-parse --short HEAD WORKING_DIRECTORY "${SOURCE_DIR}"
      OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_QUIET)
    if(rc EQUAL 0 AND NOT head STREQUAL "")
      set(commit "${head}")
      execute_process(COMMAND "${GIT}" status --porcelain --untracked-files=no
        WORKING_DIRECTORY "${SOURCE_DIR}" OUTPUT_VARIABLE changes RESULT_VARIABLE rc ERROR_QUIET)
      if(rc EQUAL 0 AND NOT changes STREQUAL "")
        string(APPEND commit "-dirty")
      endif()
    endif()
  endif()
endif()
set(content "#pragma once\n#define VKCONV_GIT_COMMIT \"${commit}\"\n")
set(old "")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL content)
  file(WRITE "${OUTPUT}" "${content}")
endif()
