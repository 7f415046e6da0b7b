// fattn trace names each GPU kernel event by the function's own name, cut out of the demangled
// signature: scopes (anonymous namespaces included), template arguments and parameters removed.
#include <gtest/gtest.h>

#include "cli_cupti.hpp"

namespace fattn::cli {
namespace {

TEST(KernelNames, TemplatesScopesAndParametersAreCut) {
  EXPECT_EQ(short_kernel_name(
                "void fattn::detail::sm90::forward_kernel<128, __nv_bfloat16>(fattn::detail::sm90::Params)"),
            "forward_kernel");
  EXPECT_EQ(
      short_kernel_name("void fattn::detail::standard::(anonymous namespace)::softmax_rows<float, (bool)1>("
                        "float const*, int)"),
      "softmax_rows");
  EXPECT_EQ(
      short_kernel_name("void cutlass::Kernel2<cutlass_80_tensorop_bf16_128x128_nn>(cutlass_80_tensorop_bf16_"
                        "128x128_nn::Params)"),
      "Kernel2");
}

TEST(KernelNames, PlainNamesAreKept) {
  EXPECT_EQ(short_kernel_name("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_kernel"),
            "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_kernel");
  EXPECT_EQ(short_kernel_name("kernel"), "kernel");
}

}  // namespace
}  // namespace fattn::cli
