import TestSupport

// The CLI runner and its vault live in TestSupport, shared by the test targets. These names make them
// the suite's own, so a test file here uses CLI and CLIVault without importing TestSupport itself
// (most do not, and files added by parallel work need not either).
typealias CLI = TestSupport.CLI
typealias CLIVault = TestSupport.CLIVault
typealias CLIError = TestSupport.CLIError
typealias Terminal = TestSupport.Terminal
