; Every MFMA intrinsic gemmc's gfx942 instruction table relies on, one kernel each (test/driver/amdgpu-mfma-table.tir).
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
declare <4 x i32> @llvm.amdgcn.mfma.i32.16x16x32.i8(i64, i64, <4 x i32>, i32 immarg, i32 immarg, i32 immarg)
define amdgpu_kernel void @mfma_i32_16x16x32_i8(ptr addrspace(1) %p, i64 %a, i64 %b) {
  %c = load <4 x i32>, ptr addrspace(1) %p
  %d = call <4 x i32> @llvm.amdgcn.mfma.i32.16x16x32.i8(i64 %a, i64 %b, <4 x i32> %c, i32 0, i32 0, i32 0)
  store <4 x i32> %d, ptr addrspace(1) %p
  ret void
}
declare <16 x i32> @llvm.amdgcn.mfma.i32.32x32x16.i8(i64, i64, <16 x i32>, i32 immarg, i32 immarg, i32 immarg)
define amdgpu_kernel void @mfma_i32_32x32x16_i8(ptr addrspace(1) %p, i64 %a, i64 %b) {
  %c = load <16 x i32>, ptr addrspace(1) %p
  %d = call <16 x i32> @llvm.amdgcn.mfma.i32.32x32x16.i8(i64 %a, i64 %b, <16 x i32> %c, i32 0, i32 0, i32 0)
  store <16 x i32> %d, ptr addrspace(1) %p
  ret void
}
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x8.xf32(<2 x float>, <2 x float>, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
define amdgpu_kernel void @mfma_f32_16x16x8_xf32(ptr addrspace(1) %p, <2 x float> %a, <2 x float> %b) {
  %c = load <4 x float>, ptr addrspace(1) %p
  %d = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x8.xf32(<2 x float> %a, <2 x float> %b, <4 x float> %c, i32 0, i32 0, i32 0)
  store <4 x float> %d, ptr addrspace(1) %p
  ret void
}
declare <16 x float> @llvm.amdgcn.mfma.f32.32x32x4.xf32(<2 x float>, <2 x float>, <16 x float>, i32 immarg, i32 immarg, i32 immarg)
define amdgpu_kernel void @mfma_f32_32x32x4_xf32(ptr addrspace(1) %p, <2 x float> %a, <2 x float> %b) {
  %c = load <16 x float>, ptr addrspace(1) %p
  %d = call <16 x float> @llvm.amdgcn.mfma.f32.32x32x4.xf32(<2 x float> %a, <2 x float> %b, <16 x float> %c, i32 0, i32 0, i32 0)
  store <16 x float> %d, ptr addrspace(1) %p
  ret void
}
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.fp8.fp8(i64, i64, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
define amdgpu_kernel void @mfma_f32_16x16x32_fp8_fp8(ptr addrspace(1) %p, i64 %a, i64 %b) {
  %c = load <4 x float>, ptr addrspace(1) %p
  %d = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.fp8.fp8(i64 %a, i64 %b, <4 x float> %c, i32 0, i32 0, i32 0)
  store <4 x float> %d, ptr addrspace(1) %p
  ret void
}
declare <16 x float> @llvm.amdgcn.mfma.f32.32x32x16.fp8.fp8(i64, i64, <16 x float>, i32 immarg, i32 immarg, i32 immarg)
define amdgpu_kernel void @mfma_f32_32x32x16_fp8_fp8(ptr addrspace(1) %p, i64 %a, i64 %b) {
  %c = load <16 x float>, ptr addrspace(1) %p
  %d = call <16 x float> @llvm.amdgcn.mfma.f32.32x32x16.fp8.fp8(i64 %a, i64 %b, <16 x float> %c, i32 0, i32 0, i32 0)
  store <16 x float> %d, ptr addrspace(1) %p
  ret void
}
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf8.bf8(i64, i64, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
define amdgpu_kernel void @mfma_f32_16x16x32_bf8_bf8(ptr addrspace(1) %p, i64 %a, i64 %b) {
  %c = load <4 x float>, ptr addrspace(1) %p
  %d = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf8.bf8(i64 %a, i64 %b, <4 x float> %c, i32 0, i32 0, i32 0)
  store <4 x float> %d, ptr addrspace(1) %p
  ret void
}
declare <16 x float> @llvm.amdgcn.mfma.f32.32x32x16.bf8.bf8(i64, i64, <16 x float>, i32 immarg, i32 immarg, i32 immarg)
define amdgpu_kernel void @mfma_f32_32x32x16_bf8_bf8(ptr addrspace(1) %p, i64 %a, i64 %b) {
  %c = load <16 x float>, ptr addrspace(1) %p
  %d = call <16 x float> @llvm.amdgcn.mfma.f32.32x32x16.bf8.bf8(i64 %a, i64 %b, <16 x float> %c, i32 0, i32 0, i32 0)
  store <16 x float> %d, ptr addrspace(1) %p
  ret void
}
