// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "SealedVault",
    products: [
        .executable(name: "vaultctl", targets: ["vaultctl"]),
        .library(name: "CryptoVault", targets: ["CryptoVault"]),
        .library(name: "AuditChain", targets: ["AuditChain"]),
        .library(name: "PrivilegedSession", targets: ["PrivilegedSession"]),
        .library(name: "PeerChannel", targets: ["PeerChannel"]),
        .library(name: "Registers", targets: ["Registers"]),
        .library(name: "Writing", targets: ["Writing"]),
        .library(name: "Sync", targets: ["Sync"]),
        .library(name: "Assistant", targets: ["Assistant"]),
    ],
    targets: [
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CCmark", pkgConfig: "libcmark", providers: [.apt(["libcmark-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        .target(name: "CProcessHardening"),
        .target(name: "CryptoVault", dependencies: ["CSodium", "CArgon2", "CSQLite", "COpenSSL"]),
        .target(name: "AuditChain", dependencies: ["CryptoVault"]),
        // Optimized even in debug builds: the leak guard scans every egress payload, and the tests
        // give it 100 MB, which unoptimized code takes minutes over.
        .target(name: "PrivilegedSession", dependencies: ["CryptoVault", "AuditChain"],
                swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        .target(name: "PeerChannel", dependencies: ["CryptoVault", "AuditChain"]),
        .target(name: "Registers", dependencies: ["CryptoVault"]),
        .target(name: "Writing", dependencies: ["CryptoVault", "AuditChain", "PrivilegedSession", "Registers", "CCmark", "CZlib"]),
        // Sync between one owner's devices (issue 17, SECURITY.md §19): change records over the writing model.
        // Optimized even in debug builds, as PrivilegedSession is: the tests replay two real editing traces
        // (49,000 records) through it, which unoptimized code takes minutes over.
        .target(name: "Sync", dependencies: ["CryptoVault", "AuditChain", "PrivilegedSession", "Writing"],
                swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        // AI routing (issue 18): lanes, policy, providers over our own HTTP client, the output contract.
        .target(name: "Assistant", dependencies: ["CryptoVault", "AuditChain", "PrivilegedSession", "Registers", "Writing"]),
        .target(name: "Appliance", dependencies: ["CProcessHardening", "CryptoVault", "AuditChain", "PrivilegedSession", "PeerChannel",
                                              "Registers", "Writing", "Agents", "Assistant", "Sync"]),
        // The console (SECURITY.md §16): its pages are embedded in the binary, so nothing is read from disk at run time.
        .target(name: "Console", dependencies: ["CryptoVault", "AuditChain", "PrivilegedSession", "PeerChannel", "Registers", "Writing", "Appliance",
                                                "Assistant", "Sync"],
                resources: [.embedInCode("Pages")]),
        // Agents (issue 18): tools, the MCP bridge, agents and their loop; CSubprocess starts MCP servers.
        .target(name: "CSubprocess"),
        .target(name: "Agents", dependencies: ["CSubprocess", "CryptoVault", "AuditChain", "PrivilegedSession", "Registers", "Writing", "Assistant"]),
        .executableTarget(name: "vaultctl", dependencies: ["CProcessHardening", "CryptoVault", "AuditChain", "PrivilegedSession", "PeerChannel",
                                                           "Appliance", "Registers", "Writing", "Console", "Agents", "Assistant", "Sync"]),
        .executableTarget(name: "vaultbench", dependencies: ["CryptoVault", "AuditChain", "PrivilegedSession", "PeerChannel",
                                                             "Writing", "Sync", "Appliance"]),
        // make bench's assistant figures (issue 18): routing overhead and time to first token.
        .executableTarget(name: "assistbench", dependencies: ["Assistant", "CryptoVault", "AuditChain", "PrivilegedSession", "Writing"]),

        // What the test targets share: the vault fixtures (TestVault, the audited AuditedVault and
        // AuditedVaultFixture, the CLI runner and its CLIVault), the recording journal, hex, the one vector loader.
        .target(name: "TestSupport", dependencies: ["CryptoVault", "AuditChain"], path: "Tests/TestSupport"),
        .testTarget(name: "CryptoVaultTests", dependencies: ["CryptoVault", "TestSupport"]),
        .testTarget(name: "AuditChainTests", dependencies: ["AuditChain", "TestSupport"]),
        .testTarget(name: "PrivilegedSessionTests", dependencies: ["PrivilegedSession", "CryptoVault", "AuditChain", "TestSupport"]),
        .testTarget(name: "PeerChannelTests", dependencies: ["PeerChannel", "PrivilegedSession", "TestSupport"]),
        .testTarget(name: "ApplianceTests", dependencies: ["Appliance", "CryptoVault", "AuditChain", "PrivilegedSession", "TestSupport"]),
        .testTarget(name: "RegistersTests", dependencies: ["Registers", "CryptoVault", "TestSupport"]),
        .testTarget(name: "SyncTests", dependencies: ["Sync", "Writing", "CryptoVault", "AuditChain", "PrivilegedSession", "TestSupport"]),
        // The sync exchange over a real channel between two vaults in this process (issue 17, SECURITY.md §19.9).
        .testTarget(name: "SyncExchangeTests", dependencies: ["Sync", "Appliance", "PeerChannel", "Writing", "CryptoVault", "AuditChain",
                                                              "PrivilegedSession", "TestSupport"]),
        .testTarget(name: "AssistantTests", dependencies: ["Assistant", "Writing", "Registers", "CryptoVault", "AuditChain", "PrivilegedSession",
                                                           "TestSupport"],
                    exclude: ["Recorded"]),
        .testTarget(name: "WritingTests", dependencies: ["Writing", "Registers", "CryptoVault", "AuditChain", "PrivilegedSession", "TestSupport"]),
        // vaultctl itself too, for the few tests of its tables (exit codes) that no command reaches yet;
        // every other test runs the built binary.
        .testTarget(name: "ConsoleTests", dependencies: ["Console", "Appliance", "Assistant", "Sync", "CryptoVault", "AuditChain", "PrivilegedSession", "PeerChannel", "Writing",
                                                         "TestSupport"]),
        .testTarget(name: "AgentsTests", dependencies: ["Agents", "Assistant", "CryptoVault", "PrivilegedSession", "Writing", "TestSupport"],
                    exclude: ["MCPServers"]),
        .testTarget(name: "VaultctlTests", dependencies: ["Appliance", "CryptoVault", "AuditChain", "PeerChannel", "TestSupport", "vaultctl", "Sync"]),
    ],
    swiftLanguageModes: [.v6]
)
