import Foundation

/// Times as the appliance shows them, to the command line and the console alike: RFC 3339 in UTC
/// ("2026-12-01T23:41:00Z").
public enum Timestamp {
    public static func text(_ seconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
