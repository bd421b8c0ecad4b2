// Whether a test program belongs to the gpu label, linked beside the one main() of
// support/main.cpp: compiled twice (tests/CMakeLists.txt), with GEBLAS_TEST_NEEDS_GPU for
// the gpu programs and without it for the others.
namespace geblas::test {

bool program_needs_gpu() {
#if defined(GEBLAS_TEST_NEEDS_GPU)
  return true;
#else
  return false;
#endif
}

}  // namespace geblas::test
