; Every MFMA intrinsic gemmc's gfx90a instruction table relies on, one kernel each (test/driver/amdgpu-mfma-table.tir).
target triple = "amdgcn-amd-amdhsa"
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x16f16(<4 x half>, <4 x half>, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
define amdgpu_kernel void @mfma_f32_16x16x16f16(ptr addrspace(1) %p, <4 x half> %a, <4 x half> %b) {
  %c = load <4 x float>, ptr addrspace(1) %p
  %d = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16f16(<4 x half> %a, <4 x half> %b, <4 x float> %c, i32 0, i32 0, i32 0)
  store <4 x float> %d, ptr addrspace(1) %p
  ret void
}
declare <16 x float> @llvm.amdgcn.mfma.f32.32x32x8f16(<4 x half>, <4 x half>, <16 x float>, i32 immarg, i32 immarg, i32 immarg)
define amdgpu_kernel void @mfma_f32_32x32x8f16(ptr addrspace(1) %p, <4 x half> %a, <4 x half> %b) {
  %c = load <16 x float>, ptr addrspace(1) %p
  %d = call <16 x float> @llvm.amdgcn.mfma.f32.32x32x8f16(<4 x half> %a, <4 x half> %b, <16 x float> %c, i32 0, i32 0, i32 0)
  store <16 x float> %d, ptr addrspace(1) %p
  ret void
}
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(<4 x i16>, <4 x i16>, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
define amdgpu_kernel void @mfma_f32_16x16x16bf16_1k(ptr addrspace(1) %p, <4 x i16> %a, <4 x i16> %b) {
  %c = load <4 x float>, ptr addrspace(1) %p
  %d = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(<4 x i16> %a, <4 x i16> %b, <4 x float> %c, i32 0, i32 0, i32 0)
  store <4 x float> %d, ptr addrspace(1) %p
  ret void
}
declare <16 x float> @llvm.amdgcn.mfma.f32.32x32x8bf16.1k(<4 x i16>, <4 x i16>, <16 x float>, i32 immarg, i32 immarg, i32 immarg)
define amdgpu_kernel void @mfma_f32_32x32x8bf16_1k(ptr addrspace(1) %p, <4 x i16> %a, <4 x i16> %b) {
  %c = load <16 x float>, ptr addrspace(1) %p
  %d = call <16 x float> @llvm.amdgcn.mfma.f32.32x32x8bf16.1k(<4 x i16> %a, <4 x i16> %b, <16 x float> %c, i32 0, i32 0, i32 0)
  store <16 x float> %d, ptr addrspace(1) %p
  ret void
}
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float, float, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
define amdgpu_kernel void @mfma_f32_16x16x4f32(ptr addrspace(1) %p, float %a, float %b) {
  %c = load <4 x float>, ptr addrspace(1) %p
  %d = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float %a, float %b, <4 x float> %c, i32 0, i32 0, i32 0)
  store <4 x float> %d, ptr addrspace(1) %p
  ret void
}
declare <16 x float> @llvm.amdgcn.mfma.f32.32x32x2f32(float, float, <16 x float>, i32 immarg, i32 immarg, i32 immarg)
define amdgpu_kernel void @mfma_f32_32x32x2f32(ptr addrspace(1) %p, float %a, float %b) {
  %c = load <16 x float>, ptr addrspace(1) %p
  %d = call <16 x float> @llvm.amdgcn.mfma.f32.32x32x2f32(float %a, float %b, <16 x float> %c, i32 0, i32 0, i32 0)
  store <16 x float> %d, ptr addrspace(1) %p
  ret void
}
declare <4 x i32> @llvm.amdgcn.mfma.i32.16x16x16i8(i32, i32, <4 x i32>, i32 immarg, i32 immarg, i32 immarg)
define amdgpu_kernel void @mfma_i32_16x16x16i8(ptr addrspace(1) %p, i32 %a, i32 %b) {
  %c = load <4 x i32>, ptr addrspace(1) %p
  %d = call <4 x i32> @llvm.amdgcn.mfma.i32.16x16x16i8(i32 %a, i32 %b, <4 x i32> %c, i32 0, i32 0, i32 0)
  store <4 x i32> %d, ptr addrspace(1) %p
  ret void
}
declare <16 x i32> @llvm.amdgcn.mfma.i32.32x32x8i8(i32, i32, <16 x i32>, i32 immarg, i32 immarg, i32 immarg)
define amdgpu_kernel void @mfma_i32_32x32x8i8(ptr addrspace(1) %p, i32 %a, i32 %b) {
  %c = load <16 x i32>, ptr addrspace(1) %p
  %d = call <16 x i32> @llvm.amdgcn.mfma.i32.32x32x8i8(i32 %a, i32 %b, <16 x i32> %c, i32 0, i32 0, i32 0)
  store <16 x i32> %d, ptr addrspace(1) %p
  ret void
}
