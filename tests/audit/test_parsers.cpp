// The cuobjdump parsers on real dumps (fixtures/) and on the format's corner cases.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "audit/cuobjdump_parsers.hpp"
#include "audit/kernel_names.hpp"
#include "audit/kernel_report.hpp"
#include "fixture_library.hpp"

namespace fattn::audit {
namespace {

using testing::FixtureLibrary;

TEST(SassInstruction, ReadsOffsetAndOpcodeWithModifiers) {
  const auto instruction = parse_sass_instruction(
      "        /*0a40*/                   HMMA.16816.F32 R4, R8, R12, R4 ;     /* 0x0000000c0804723c */");
  ASSERT_TRUE(instruction.has_value());
  EXPECT_EQ(instruction->offset, 0xa40u);
  EXPECT_EQ(instruction->opcode, "HMMA.16816.F32");
}

TEST(SassInstruction, SkipsPredicateGuards) {
  const auto branch = parse_sass_instruction("        /*0060*/              @!P0 BRA 0x780 ;   /* 0x0000071000008947 */");
  ASSERT_TRUE(branch.has_value());
  EXPECT_EQ(branch->opcode, "BRA");
  const auto uniform = parse_sass_instruction("        /*0070*/             @!UPT UIADD3 UR4, UR4, 0x1, URZ ;");
  ASSERT_TRUE(uniform.has_value());
  EXPECT_EQ(uniform->opcode, "UIADD3");
}

TEST(SassInstruction, ReadsOpcodesWithoutOperandsAndDualIssueBraces) {
  EXPECT_EQ(parse_sass_instruction("        /*0450*/                   EXIT ;")->opcode, "EXIT");
  EXPECT_EQ(parse_sass_instruction("        /*0008*/                   { FADD R0, R1, R2 ;")->opcode, "FADD");
}

TEST(SassInstruction, IgnoresEncodingLinesAndHeaders) {
  EXPECT_FALSE(parse_sass_instruction("                                          /* 0x000fe20000000f00 */"));
  EXPECT_FALSE(parse_sass_instruction("\t\tFunction : _Z3fooPf"));
  EXPECT_FALSE(parse_sass_instruction("\t.headerflags\t@\"EF_CUDA_SM80 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM80)\""));
  EXPECT_FALSE(parse_sass_instruction(""));
}

TEST(SassFixture, FindsEveryCubinWithItsArch) {
  const FixtureLibrary& library = FixtureLibrary::get();
  std::multiset<std::string> archs;
  for (const SassCubin& cubin : library.sass) archs.insert(cubin.arch);
  // Three translation units for both archs, one for sm_90a only, and nvlink's empty sm_75 stub.
  EXPECT_EQ(archs.count("sm_80"), 3u);
  EXPECT_EQ(archs.count("sm_90a"), 4u);
  EXPECT_EQ(archs.count("sm_75"), 1u);
  EXPECT_EQ(library.sass.size(), 8u);
}

TEST(SassFixture, EveryKernelOfBothArchsIsThere) {
  const FixtureLibrary& library = FixtureLibrary::get();
  for (const std::string& arch : {"sm_80", "sm_90a"}) {
    for (const std::string& name : {testing::kFfmaLoop, testing::kLocalArray, testing::kMmaTile,
                                    testing::kSpillingSoftmax, testing::kMysteryKernel, testing::kThirdPartyScale}) {
      EXPECT_NO_THROW(library.report(name, arch)) << name << " " << arch;
    }
  }
  EXPECT_NO_THROW(library.report(testing::kWgmmaTile, "sm_90a"));
  EXPECT_THROW(library.report(testing::kWgmmaTile, "sm_80"), std::runtime_error);
  EXPECT_EQ(library.reports.size(), 13u);
}

TEST(SassFixture, CountsTheInstructionsOfEachFunction) {
  const KernelReport& mma = FixtureLibrary::get().report(testing::kMmaTile, "sm_80");
  EXPECT_GT(mma.instruction_count, 0);
  std::int64_t total = 0;
  for (const auto& [opcode, count] : mma.opcode_counts) total += count;
  EXPECT_EQ(total, mma.instruction_count);
  EXPECT_EQ(mma.opcode_counts.at("HMMA.16816.F32"), 1);
  EXPECT_EQ(mma.opcode_counts.at("LDSM.16.M88.4"), 1);
}

TEST(SassFixture, CudaCoreSampleIsFfmaShuffleAndExp2) {
  for (const std::string& arch : {"sm_80", "sm_90a"}) {
    const InstructionCounts& c = FixtureLibrary::get().report(testing::kFfmaLoop, arch).counts;
    EXPECT_GT(count_of(c, InstructionClass::ffma), 0) << arch;
    EXPECT_GT(count_of(c, InstructionClass::shfl), 0) << arch;
    EXPECT_GT(count_of(c, InstructionClass::mufu_ex2), 0) << arch;
    EXPECT_EQ(count_of(c, InstructionClass::hmma), 0) << arch;
    EXPECT_EQ(count_of(c, InstructionClass::ldl) + count_of(c, InstructionClass::stl), 0) << arch;
  }
}

TEST(SassFixture, TensorCoreSampleIsMmaLdmatrixCpAsync) {
  for (const std::string& arch : {"sm_80", "sm_90a"}) {
    const InstructionCounts& c = FixtureLibrary::get().report(testing::kMmaTile, arch).counts;
    EXPECT_EQ(count_of(c, InstructionClass::hmma), 1) << arch;
    EXPECT_EQ(count_of(c, InstructionClass::ldsm), 1) << arch;
    EXPECT_EQ(count_of(c, InstructionClass::ldgsts), 1) << arch;
    EXPECT_EQ(count_of(c, InstructionClass::bar), 1) << arch;
    EXPECT_EQ(count_of(c, InstructionClass::mufu_ex2), 1) << arch;
    EXPECT_EQ(count_of(c, InstructionClass::hgmma), 0) << arch;
  }
}

TEST(SassFixture, HopperSampleIsWgmmaTmaAndStmatrix) {
  const InstructionCounts& c = FixtureLibrary::get().report(testing::kWgmmaTile, "sm_90a").counts;
  EXPECT_EQ(count_of(c, InstructionClass::hgmma), 1);
  EXPECT_EQ(count_of(c, InstructionClass::qgmma), 1);
  EXPECT_EQ(count_of(c, InstructionClass::utmaldg), 1);
  EXPECT_EQ(count_of(c, InstructionClass::utmastg), 1);
  EXPECT_EQ(count_of(c, InstructionClass::ublkcp), 1);
  EXPECT_EQ(count_of(c, InstructionClass::stsm), 1);
  EXPECT_EQ(count_of(c, InstructionClass::bar), 1);
  EXPECT_EQ(count_of(c, InstructionClass::hmma), 0);
}

TEST(SassFixture, RunTimeIndexedArrayGoesToLocalMemory) {
  for (const std::string& arch : {"sm_80", "sm_90a"}) {
    const KernelReport& r = FixtureLibrary::get().report(testing::kLocalArray, arch);
    EXPECT_GT(count_of(r.counts, InstructionClass::ldl), 0) << arch;
    EXPECT_GT(count_of(r.counts, InstructionClass::stl), 0) << arch;
  }
}

TEST(ResourceFixture, ReadsRegistersSharedMemoryAndStack) {
  const FixtureLibrary& library = FixtureLibrary::get();
  const KernelReport& mma = library.report(testing::kMmaTile, "sm_80");
  ASSERT_TRUE(mma.resources.has_value());
  EXPECT_EQ(mma.resources->registers, 12);
  EXPECT_EQ(mma.resources->shared_bytes, 4096);  // 256 uint4 of the sample's tile
  EXPECT_EQ(mma.resources->stack_bytes, 0);
  const KernelReport& wgmma = library.report(testing::kWgmmaTile, "sm_90a");
  ASSERT_TRUE(wgmma.resources.has_value());
  EXPECT_EQ(wgmma.resources->registers, 34);
  EXPECT_EQ(wgmma.resources->shared_bytes, 17416);  // 4096 floats + an 8-byte mbarrier, aligned
  EXPECT_GT(wgmma.resources->constant_bank0_bytes, 0);
}

TEST(ResourceFixture, StackFramesMatchPtxas) {
  const FixtureLibrary& library = FixtureLibrary::get();
  const auto expected = testing::ptxas_spills();
  ASSERT_FALSE(expected.empty());
  for (const auto& [kernel, ptxas] : expected) {
    const KernelReport& r = library.report(kernel.first, kernel.second);
    ASSERT_TRUE(r.resources.has_value()) << kernel.first;
    EXPECT_EQ(r.resources->stack_bytes, ptxas.stack_bytes) << kernel.first << " " << kernel.second;
  }
}

TEST(SpillFixture, SpilledBytesMatchPtxasExactly) {
  const FixtureLibrary& library = FixtureLibrary::get();
  const auto expected = testing::ptxas_spills();
  int spilling_kernels = 0;
  for (const auto& [kernel, ptxas] : expected) {
    const KernelReport& r = library.report(kernel.first, kernel.second);
    ASSERT_TRUE(r.spills.has_value()) << kernel.first;
    EXPECT_EQ(r.spills->store_bytes, ptxas.store_bytes) << kernel.first << " " << kernel.second;
    EXPECT_EQ(r.spills->load_bytes, ptxas.load_bytes) << kernel.first << " " << kernel.second;
    if (ptxas.store_bytes > 0) ++spilling_kernels;
  }
  EXPECT_EQ(spilling_kernels, 2);  // spilling_softmax, in both archs
}

TEST(SpillFixture, LocalArrayIsStackNotSpill) {
  // LDL/STL of a run-time-indexed array are not spills: ptxas does not annotate them.
  const KernelReport& r = FixtureLibrary::get().report(testing::kLocalArray, "sm_80");
  ASSERT_TRUE(r.spills.has_value());
  EXPECT_EQ(r.spills->total(), 0);
  EXPECT_GT(r.resources->stack_bytes, 0);
}

TEST(LocalAccessBytes, ReadsTheWidthModifier) {
  EXPECT_EQ(local_access_bytes("STL"), 4);
  EXPECT_EQ(local_access_bytes("LDL.LU"), 4);
  EXPECT_EQ(local_access_bytes("STL.64"), 8);
  EXPECT_EQ(local_access_bytes("LDL.LU.128"), 16);
  EXPECT_EQ(local_access_bytes("LDL.U8"), 1);
  EXPECT_EQ(local_access_bytes("STL.S16"), 2);
}

// A dump of one .cubin file: no "Fatbin elf code:" header, the arch only in "code for".
constexpr const char* kLoneCubinSass = R"dump(
	code for sm_80
		Function : _Z6kernelPf
	.headerflags	@"EF_CUDA_SM80 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM80)"
        /*0000*/                   MOV R1, c[0x0][0x28] ;
                                                                 /* 0x000fe40000000f00 */
        /*0010*/                   FFMA R2, R3, R4, R5 ;
        /*0020*/                   EXIT ;
)dump";

TEST(SassText, ParsesALoneCubinDump) {
  std::istringstream text(kLoneCubinSass);
  const std::vector<SassCubin> cubins = parse_sass(text);
  ASSERT_EQ(cubins.size(), 1u);
  EXPECT_EQ(cubins[0].arch, "sm_80");
  ASSERT_EQ(cubins[0].functions.size(), 1u);
  EXPECT_EQ(cubins[0].functions[0].mangled_name, "_Z6kernelPf");
  EXPECT_EQ(cubins[0].functions[0].instruction_count, 3);
}

// PTX blocks carry no SASS and must not be taken for cubins, nor swallow the next one.
constexpr const char* kSassWithPtxBlock = R"dump(
Fatbin ptx code:
================
arch = sm_90a
code version = [9,0]
compressed

Fatbin elf code:
================
arch = sm_90a
code version = [1,8]

	code for sm_90a
		Function : _Z6kernelPf
        /*0000*/                   HGMMA.64x16x16.F32.BF16 R24, gdesc[UR4], RZ, !UPT ;
)dump";

TEST(SassText, SkipsPtxBlocks) {
  std::istringstream text(kSassWithPtxBlock);
  const std::vector<SassCubin> cubins = parse_sass(text);
  ASSERT_EQ(cubins.size(), 1u);
  EXPECT_EQ(cubins[0].arch, "sm_90a");
  ASSERT_EQ(cubins[0].functions.size(), 1u);
  EXPECT_EQ(cubins[0].functions[0].opcode_counts.at("HGMMA.64x16x16.F32.BF16"), 1);
}

// The same kernel name twice in one arch (a template instantiated in two translation units):
// each copy must meet its own resources and spills.
constexpr const char* kDuplicateSass = R"dump(
Fatbin elf code:
arch = sm_80
	code for sm_80
		Function : _Z3dupv
        /*0000*/                   STL [R1], R2 ;
Fatbin elf code:
arch = sm_80
	code for sm_80
		Function : _Z3dupv
        /*0000*/                   STL.64 [R1], R2 ;
        /*0010*/                   LDL.64 R2, [R1] ;
)dump";
constexpr const char* kDuplicateResources = R"dump(
Fatbin elf code:
arch = sm_80
Resource usage:
 Function _Z3dupv:
  REG:10 STACK:4 SHARED:0 LOCAL:0 CONSTANT[0]:352 TEXTURE:0 SURFACE:0 SAMPLER:0
Fatbin elf code:
arch = sm_80
Resource usage:
 Function _Z3dupv:
  REG:20 STACK:8 SHARED:0 LOCAL:0 CONSTANT[0]:352 TEXTURE:0 SURFACE:0 SAMPLER:0
)dump";
constexpr const char* kDuplicateElf =
    "Fatbin elf code:\narch = sm_80\n64-bit ELF: type=ET_EXEC, ABI=8, sm=80, toolkit=13.0\n"
    ".nv.info._Z3dupv\n\tAttribute:\tEIATTR_CUDA_API_VERSION\n"
    "Fatbin elf code:\narch = sm_80\n64-bit ELF: type=ET_EXEC, ABI=8, sm=80, toolkit=13.0\n"
    ".nv.info._Z3dupv\n\tAttribute:\tEIATTR_ANNOTATIONS\n\tFormat:\tEIFMT_SVAL\n"
    "\tValue:\tSpillRefill : \tOffset : 0x0\n\t\tSpillRefill : \tOffset : 0x10\n"
    ".text._Z3dupv\n";

TEST(KernelReports, MatchDuplicateNamesByOccurrence) {
  std::istringstream sass_text(kDuplicateSass), resource_text(kDuplicateResources), elf_text(kDuplicateElf);
  const auto sass = parse_sass(sass_text);
  const auto resources = parse_resource_usage(resource_text);
  const auto elf = parse_elf_info(elf_text);
  ASSERT_EQ(elf.size(), 2u);
  EXPECT_EQ(elf[1].arch, "sm_80");
  const std::vector<KernelReport> reports = build_kernel_reports(sass, resources, elf);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].resources->registers, 10);
  EXPECT_EQ(reports[1].resources->registers, 20);
  EXPECT_EQ(reports[0].spills->total(), 0);
  EXPECT_EQ(reports[1].spills->store_bytes, 8);
  EXPECT_EQ(reports[1].spills->load_bytes, 8);
}

TEST(KernelReports, NoStackFrameMeansNoSpillsWithoutTheElfDump) {
  std::istringstream sass_text(kDuplicateSass), resource_text(kDuplicateResources);
  std::vector<ResourceCubin> resources = parse_resource_usage(resource_text);
  resources[0].functions[0].usage.stack_bytes = 0;
  const std::vector<KernelReport> reports = build_kernel_reports(parse_sass(sass_text), resources, {});
  ASSERT_TRUE(reports[0].spills.has_value());
  EXPECT_EQ(reports[0].spills->total(), 0);
  EXPECT_FALSE(reports[1].spills.has_value());  // a stack frame, and no ELF info to say what is in it
}

TEST(KernelReports, MissingResourceAndElfEntriesStayUnknown) {
  std::istringstream sass_text(kLoneCubinSass);
  const std::vector<KernelReport> reports = build_kernel_reports(parse_sass(sass_text), {}, {});
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_FALSE(reports[0].resources.has_value());
  EXPECT_FALSE(reports[0].spills.has_value());
}

TEST(ElfInfo, ReadsALoneCubinDump) {
  std::istringstream text(
      "64-bit ELF: type=ET_EXEC, ABI=8, sm=90a, toolkit=13.0, flags=0x6005a04\n"
      ".nv.info._Z1fv\n\tValue:\tSpillRefill : \tOffset : 0x150\n");
  const auto cubins = parse_elf_info(text);
  ASSERT_EQ(cubins.size(), 1u);
  EXPECT_EQ(cubins[0].arch, "sm_90a");
  ASSERT_EQ(cubins[0].functions.size(), 1u);
  EXPECT_EQ(cubins[0].functions[0].offsets, std::vector<std::uint32_t>{0x150});
}

TEST(Arch, NormalizesBothSpellings) {
  EXPECT_EQ(normalize_arch("sm_90a"), "sm_90a");
  EXPECT_EQ(normalize_arch("sm=90a, toolkit=13.0"), "sm_90a");
  EXPECT_EQ(normalize_arch("sm=80,"), "sm_80");
}

TEST(KernelNames, DemanglesAndStripsReturnTypeAndParameters) {
  const std::string demangled = demangle(testing::kFfmaLoop);
  EXPECT_EQ(demangled, "void fattn::detail::simt::ffma_loop<float, 4>(float const*, float*, int)");
  EXPECT_EQ(qualified_name(demangled), "fattn::detail::simt::ffma_loop<float, 4>");
  EXPECT_EQ(short_name(qualified_name(demangled)), "simt::ffma_loop<float, 4>");
  EXPECT_EQ(qualified_name(demangle(testing::kMmaTile)), "fattn::detail::sm80::mma_tile");
}

TEST(KernelNames, KeepsNonCppNamesAndAnonymousNamespaces) {
  EXPECT_EQ(demangle("plain_c_kernel"), "plain_c_kernel");
  EXPECT_EQ(qualified_name("plain_c_kernel"), "plain_c_kernel");
  EXPECT_EQ(qualified_name("fattn::detail::(anonymous namespace)::fill(float*, int)"),
            "fattn::detail::(anonymous namespace)::fill");
}

TEST(KernelNames, SplitsOnlyOutsideTemplateArguments) {
  const std::vector<std::string> expected = {"fattn", "detail", "sm80", "forward_kernel<fattn::detail::sm80::Config<64> >"};
  EXPECT_EQ(name_components("fattn::detail::sm80::forward_kernel<fattn::detail::sm80::Config<64> >"), expected);
  EXPECT_EQ(short_name("fattn::detail::sm80::forward_kernel<fattn::detail::sm80::Config<64> >"),
            "sm80::forward_kernel<sm80::Config<64> >");
}

TEST(KernelNames, TemplateArgumentsWithCastsDoNotEndTheName) {
  EXPECT_EQ(qualified_name("void fattn::detail::sm90::kernel<(fattn::DType)1, 128>(fattn::detail::Params)"),
            "fattn::detail::sm90::kernel<(fattn::DType)1, 128>");
}

}  // namespace
}  // namespace fattn::audit
