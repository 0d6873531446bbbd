import Foundation

enum ProcessInfoBridge {
    static var activeProcessorCount: Int { ProcessInfo.processInfo.activeProcessorCount }
}
