// Instruction classes, family matching and the declaration check, on the fixture library and
// on made-up kernels for the cases the fixtures do not cover.
#include <gtest/gtest.h>

#include <algorithm>

#include "audit/instruction_classes.hpp"
#include "fattn/fattn.hpp"
#include "audit/kernel_names.hpp"
#include "audit/kernel_rules.hpp"
#include "fixture_library.hpp"

namespace fattn::audit {
namespace {

using testing::FixtureLibrary;

std::optional<InstructionClass> classify(const char* opcode) { return classify_opcode(opcode); }

TEST(InstructionClasses, ClassifiesByMnemonicAndModifiers) {
  EXPECT_EQ(classify("FFMA"), InstructionClass::ffma);
  EXPECT_EQ(classify("FFMA.FTZ"), InstructionClass::ffma);
  EXPECT_EQ(classify("FFMA32I"), InstructionClass::ffma);
  EXPECT_EQ(classify("HMMA.16816.F32.BF16"), InstructionClass::hmma);
  EXPECT_EQ(classify("HGMMA.64x128x16.F32.BF16"), InstructionClass::hgmma);
  EXPECT_EQ(classify("QGMMA.64x16x32.F32.E4M3.E4M3"), InstructionClass::qgmma);
  EXPECT_EQ(classify("LDGSTS.E.BYPASS.LTC128B.128"), InstructionClass::ldgsts);
  EXPECT_EQ(classify("LDSM.16.MT88.4"), InstructionClass::ldsm);
  EXPECT_EQ(classify("STSM.16.M88"), InstructionClass::stsm);
  EXPECT_EQ(classify("UTMALDG.2D"), InstructionClass::utmaldg);
  EXPECT_EQ(classify("UTMASTG.2D"), InstructionClass::utmastg);
  EXPECT_EQ(classify("UBLKCP.S.G"), InstructionClass::ublkcp);
  EXPECT_EQ(classify("BAR.SYNC.DEFER_BLOCKING"), InstructionClass::bar);
  EXPECT_EQ(classify("SHFL.BFLY"), InstructionClass::shfl);
  EXPECT_EQ(classify("MUFU.EX2"), InstructionClass::mufu_ex2);
  EXPECT_EQ(classify("LDL.LU.64"), InstructionClass::ldl);
  EXPECT_EQ(classify("STL.128"), InstructionClass::stl);
}

TEST(InstructionClasses, LeavesLookalikesOut) {
  EXPECT_FALSE(classify("HFMA2.MMA"));  // a register move in ptxas's hands, not an MMA
  EXPECT_FALSE(classify("MUFU.RCP"));
  EXPECT_FALSE(classify("LDS.128"));
  EXPECT_FALSE(classify("LDG.E"));
  EXPECT_FALSE(classify("SYNCS.EXCH.64"));
  EXPECT_FALSE(classify("UTMACMDFLUSH"));
}

TEST(InstructionClasses, NamesRoundTrip) {
  for (InstructionClass instruction_class : all_classes()) {
    EXPECT_EQ(class_from_name(class_name(instruction_class)), instruction_class);
  }
  EXPECT_FALSE(class_from_name("NOPE"));
}

KernelReport named_kernel(const std::string& demangled, const std::string& arch = "sm_80") {
  KernelReport report;
  report.mangled_name = demangled;
  report.demangled_name = demangled;
  report.qualified_name = qualified_name(demangled);
  report.short_name = short_name(report.qualified_name);
  report.arch = arch;
  return report;
}

const KernelFamily* family_named(const std::string& demangled) {
  return family_of(named_kernel(demangled), declared_families());
}

TEST(Families, MatchByNamespaceInTheKernelsPath) {
  EXPECT_EQ(family_named("void fattn::detail::simt::forward<64, float>(Params)")->name, "cuda_simt");
  EXPECT_EQ(family_named("void fattn::detail::sm80::forward_kernel<Cfg, Mask>(Params, Mask)")->name, "cuda_sm80");
  EXPECT_EQ(family_named("void fattn::detail::sm90::forward_kernel<128, __nv_bfloat16>(Params)")->name, "cuda_sm90");
  EXPECT_EQ(family_named("fattn::detail::standard::softmax_rows(float*, int)")->name, "cuda_standard");
  EXPECT_EQ(family_named("fattn::sm80::(anonymous namespace)::kernel(int)")->name, "cuda_sm80");
}

TEST(Families, MatchAGenericKernelByItsTemplateArgumentsWhenUnambiguous) {
  EXPECT_EQ(family_named("void fattn::detail::flash<fattn::detail::sm80::Traits<64> >(Params)")->name, "cuda_sm80");
  EXPECT_EQ(family_named("void fattn::detail::copy<fattn::detail::sm80::A, fattn::detail::sm90::B>(Params)"), nullptr);
}

TEST(Families, KernelsOutsideFattnAreNotAudited) {
  const KernelReport cublas = named_kernel("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm>(Params)");
  EXPECT_FALSE(belongs_to_fattn(cublas));
  EXPECT_EQ(family_of(cublas, declared_families()), nullptr);
  EXPECT_EQ(family_named("void thirdparty::sm80::kernel()"), nullptr);
  EXPECT_EQ(family_named("extern_c_kernel"), nullptr);
}

TEST(Families, AreNamedAfterTheirBackends) {
  for (const KernelFamily& family : declared_families()) {
    EXPECT_TRUE(backend_from_string(family.name).has_value()) << family.name;
  }
}

TEST(Families, DeclarationsSayWhatTheIssueAsks) {
  auto rules_of = [](const std::string& name) {
    std::vector<std::string> described;
    for (const KernelFamily& family : declared_families()) {
      if (family.name != name) continue;
      for (const InstructionRule& rule : family.rules) described.push_back(describe(rule).substr(0, describe(rule).find(" — ")));
    }
    return described;
  };
  using Rules = std::vector<std::string>;
  EXPECT_EQ(rules_of("cuda_simt"), (Rules{"present FFMA", "absent HMMA HGMMA QGMMA", "absent LDL STL"}));
  EXPECT_EQ(rules_of("cuda_sm80"), (Rules{"present HMMA", "present LDSM", "present LDGSTS", "absent LDL STL"}));
  EXPECT_EQ(rules_of("cuda_sm90"), (Rules{"present HGMMA", "present UTMALDG", "absent LDL STL"}));
  EXPECT_EQ(rules_of("cuda_standard"), (Rules{"absent LDL STL"}));
}

const AuditedKernel& audited(const AuditResult& result, const std::string& mangled, const std::string& arch) {
  const auto it = std::find_if(result.kernels.begin(), result.kernels.end(), [&](const AuditedKernel& kernel) {
    return kernel.report.mangled_name == mangled && kernel.report.arch == arch;
  });
  if (it == result.kernels.end()) throw std::runtime_error("not audited: " + mangled + " " + arch);
  return *it;
}

TEST(AuditFixture, EachSampleGetsTheVerdictItWasWrittenFor) {
  const AuditResult result = audit_kernels(FixtureLibrary::get().reports, declared_families(), std::nullopt);
  for (const std::string& arch : {"sm_80", "sm_90a"}) {
    EXPECT_EQ(audited(result, testing::kFfmaLoop, arch).status, KernelStatus::passed) << arch;
    EXPECT_EQ(audited(result, testing::kMmaTile, arch).status, KernelStatus::passed) << arch;
    EXPECT_EQ(audited(result, testing::kLocalArray, arch).status, KernelStatus::violated) << arch;
    EXPECT_EQ(audited(result, testing::kSpillingSoftmax, arch).status, KernelStatus::violated) << arch;
    EXPECT_EQ(audited(result, testing::kMysteryKernel, arch).status, KernelStatus::undeclared) << arch;
  }
  EXPECT_EQ(audited(result, testing::kWgmmaTile, "sm_90a").status, KernelStatus::passed);
  EXPECT_EQ(result.ignored_outside_fattn, 2);  // thirdparty::scale in both archs
  EXPECT_FALSE(result.family_presence_checked);
  EXPECT_FALSE(result.passed(false));
}

TEST(AuditFixture, ABrokenRuleNamesTheRuleAndTheCounts) {
  const AuditResult result = audit_kernels(FixtureLibrary::get().reports, declared_families(), std::nullopt);
  const AuditedKernel& local = audited(result, testing::kLocalArray, "sm_80");
  // The sample also has no FFMA (it only adds), which its simt namespace requires.
  ASSERT_EQ(local.broken_rules.size(), 2u);
  EXPECT_NE(local.broken_rules[0].find("present FFMA"), std::string::npos) << local.broken_rules[0];
  const std::string& broken = local.broken_rules[1];
  EXPECT_NE(broken.find("absent LDL STL"), std::string::npos) << broken;
  EXPECT_NE(broken.find("LDL="), std::string::npos) << broken;
  EXPECT_NE(broken.find("STL="), std::string::npos) << broken;
  EXPECT_EQ(broken.find("LDL=0"), std::string::npos) << broken;
}

// The fixture without its rule-breaking samples: what a healthy library looks like.
std::vector<KernelReport> healthy_reports(std::vector<std::string> also_drop = {}) {
  also_drop.insert(also_drop.end(), {testing::kLocalArray, testing::kSpillingSoftmax, testing::kMysteryKernel});
  std::vector<KernelReport> reports;
  for (const KernelReport& r : FixtureLibrary::get().reports) {
    if (std::find(also_drop.begin(), also_drop.end(), r.mangled_name) == also_drop.end()) reports.push_back(r);
  }
  return reports;
}

TEST(AuditFixture, HealthyLibraryPassesEvenStrictly) {
  const std::set<std::string> compiled = {"cuda_simt", "cuda_sm80", "cuda_sm90"};
  const AuditResult result = audit_kernels(healthy_reports(), declared_families(), compiled);
  EXPECT_TRUE(result.family_presence_checked);
  EXPECT_TRUE(result.missing_families.empty());
  EXPECT_TRUE(result.passed(true));
}

TEST(AuditFixture, UndeclaredKernelFailsOnlyWhenStrict) {
  std::vector<KernelReport> reports = healthy_reports();
  reports.push_back(FixtureLibrary::get().report(testing::kMysteryKernel, "sm_80"));
  const AuditResult result = audit_kernels(reports, declared_families(), std::nullopt);
  EXPECT_EQ(result.count(KernelStatus::undeclared), 1);
  EXPECT_TRUE(result.passed(false));
  EXPECT_FALSE(result.passed(true));
}

TEST(AuditFixture, CompiledFamilyWithoutKernelsFails) {
  const AuditResult result = audit_kernels(healthy_reports({testing::kWgmmaTile}), declared_families(),
                                           std::set<std::string>{"cuda_simt", "cuda_sm80", "cuda_sm90"});
  ASSERT_EQ(result.missing_families.size(), 1u);
  EXPECT_NE(result.missing_families[0].find("cuda_sm90"), std::string::npos);
  EXPECT_FALSE(result.passed(false));
}

TEST(AuditFixture, FamilyMissingFromOneArchFails) {
  std::vector<KernelReport> reports;
  for (const KernelReport& r : healthy_reports()) {
    if (!(r.mangled_name == testing::kFfmaLoop && r.arch == "sm_90a")) reports.push_back(r);
  }
  const AuditResult result = audit_kernels(reports, declared_families(), std::set<std::string>{"cuda_simt"});
  ASSERT_EQ(result.missing_families.size(), 1u);
  EXPECT_NE(result.missing_families[0].find("cuda_simt: no kernel in the sm_90a cubins"), std::string::npos)
      << result.missing_families[0];
}

TEST(AuditFixture, FamiliesNotCompiledAreNotRequired) {
  const AuditResult result =
      audit_kernels(healthy_reports({testing::kWgmmaTile}), declared_families(), std::set<std::string>{"cuda_sm80"});
  EXPECT_TRUE(result.missing_families.empty());
  EXPECT_TRUE(result.passed(true));
}

TEST(Audit, HopperKernelInAnSm80CubinIsNotCheckedButFlagged) {
  KernelReport stub = named_kernel("void fattn::detail::sm90::forward_kernel<128>(Params)", "sm_80");
  const AuditResult result = audit_kernels({stub}, declared_families(), std::nullopt);
  ASSERT_EQ(result.kernels.size(), 1u);
  EXPECT_EQ(result.kernels[0].status, KernelStatus::other_arch);
  EXPECT_TRUE(result.kernels[0].broken_rules.empty());
  EXPECT_TRUE(result.passed(true));
}

TEST(Audit, HelperKernelsFollowTheirOwnRules) {
  KernelFamily family{"cuda_sm80", "sm80", {}, {{"mma", Requirement::present, {InstructionClass::hmma}}}, {}};
  family.helpers = {{"convert_dq"}, {{"no local memory", Requirement::absent, {InstructionClass::ldl, InstructionClass::stl}}}};
  const std::vector<KernelFamily> families = {family};
  KernelReport main_kernel = named_kernel("void fattn::detail::sm80::backward_kernel<64>(Params)");
  KernelReport helper = named_kernel("void fattn::detail::sm80::convert_dq<64>(Params)");
  const AuditResult result = audit_kernels({main_kernel, helper}, families, std::nullopt);
  EXPECT_EQ(result.kernels[0].status, KernelStatus::violated);  // no HMMA in the main kernel
  EXPECT_EQ(result.kernels[1].status, KernelStatus::passed);    // the helper needs none
}

TEST(Audit, DeclaredBackwardHelpersNeedNoMma) {
  KernelReport helper = named_kernel("void fattn::detail::sm80::backward_preprocess_kernel<__half>(Params)");
  KernelReport main_kernel = named_kernel("void fattn::detail::sm80::backward_kernel<Cfg, __half, NoMask>(Params)");
  count_of(helper.counts, InstructionClass::ffma) = 29;
  const AuditResult result = audit_kernels({helper, main_kernel}, declared_families(), std::nullopt);
  EXPECT_EQ(result.kernels[0].status, KernelStatus::passed);
  EXPECT_EQ(result.kernels[1].status, KernelStatus::violated);  // the main kernel still needs HMMA
  KernelReport spilling_helper = helper;
  count_of(spilling_helper.counts, InstructionClass::stl) = 1;
  EXPECT_EQ(audit_kernels({spilling_helper}, declared_families(), std::nullopt).kernels[0].status,
            KernelStatus::violated);
}

// The sm80 forward for 2-byte-aligned rows copies the aligned words covering its rows with
// cp.async (forward v11): it is held to the family's rules, LDGSTS included, like the others.
TEST(Audit, UnalignedRowsForwardNeedsCpAsyncLikeTheOthers) {
  KernelReport unaligned = named_kernel("void fattn::detail::sm80::forward_kernel_unaligned_rows<Cfg, __half, NoMask>(Params)");
  count_of(unaligned.counts, InstructionClass::hmma) = 96;
  count_of(unaligned.counts, InstructionClass::ldsm) = 60;
  EXPECT_EQ(audit_kernels({unaligned}, declared_families(), std::nullopt).kernels[0].status,
            KernelStatus::violated);  // no LDGSTS
  count_of(unaligned.counts, InstructionClass::ldgsts) = 40;
  EXPECT_EQ(audit_kernels({unaligned}, declared_families(), std::nullopt).kernels[0].status,
            KernelStatus::passed);
  count_of(unaligned.counts, InstructionClass::ldl) = 1;
  EXPECT_EQ(audit_kernels({unaligned}, declared_families(), std::nullopt).kernels[0].status,
            KernelStatus::violated);
}

}  // namespace
}  // namespace fattn::audit
