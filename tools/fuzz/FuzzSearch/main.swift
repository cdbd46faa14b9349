// Empty on purpose. In a plain `swift build` this makes FuzzSearch a program that does nothing; the
// fuzz build (`--sanitize fuzzer`) compiles the target as a library and links libFuzzer's main,
// which calls `LLVMFuzzerTestOneInput` in FuzzSearch.swift. Top-level code here would break that build.
