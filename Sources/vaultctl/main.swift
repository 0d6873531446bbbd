import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// vaultctl: the sealed vault and audit appliance.
Hardening.apply()
let arguments = Array(CommandLine.arguments.dropFirst())
exit(Dispatcher.run(arguments).rawValue)
