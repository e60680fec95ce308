# Sourced at the start of every command on the GPU machine (see ../shared/gpu/README.md): unpacks
# the Vulkan loader carried in .gl/ and points the loader at NVIDIA's ICD.
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader || true
