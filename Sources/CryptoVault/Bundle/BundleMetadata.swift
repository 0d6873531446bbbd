/// What a bundle says about its file, sealed in the header: the original name, content type and
/// modification time. Encoded as
///
///     u16be name length (0...1024) || name (UTF-8)
///     u16be type length (0...255)  || content type (printable ASCII)
///     u64be modification time (seconds since the Unix epoch, two's complement)
///
/// with nothing after it.
public struct BundleMetadata: Sendable, Equatable {
    public static let maximumNameLength = 1024
    public static let maximumContentTypeLength = 255
    public static let maximumEncodedSize = 2 + maximumNameLength + 2 + maximumContentTypeLength + 8

    public var name: String
    public var contentType: String
    public var modificationTime: Int64

    public init(name: String, contentType: String = "application/octet-stream", modificationTime: Int64) {
        self.name = name
        self.contentType = contentType
        self.modificationTime = modificationTime
    }

    func encoded() throws -> [UInt8] {
        let nameBytes = Array(name.utf8)
        let typeBytes = Array(contentType.utf8)
        guard nameBytes.count <= Self.maximumNameLength else {
            throw CryptoVaultError(.invalidInput, "a bundle's file name is limited to \(Self.maximumNameLength) bytes")
        }
        guard typeBytes.count <= Self.maximumContentTypeLength, typeBytes.allSatisfy({ (0x20...0x7e).contains($0) }) else {
            throw CryptoVaultError(.invalidInput, "a content type is at most 255 printable ASCII characters")
        }
        var writer = BinaryWriter()
        writer.append(UInt16(nameBytes.count))
        writer.append(nameBytes)
        writer.append(UInt16(typeBytes.count))
        writer.append(typeBytes)
        writer.append(UInt64(bitPattern: modificationTime))
        return writer.bytes
    }

    init(decoding bytes: [UInt8]) throws {
        var reader = BinaryReader(bytes)
        do {
            let nameLength = Int(try reader.readUInt16())
            guard nameLength <= Self.maximumNameLength, let name = String(validating: try reader.read(nameLength), as: UTF8.self) else {
                throw BinaryReader.ShortRead()
            }
            let typeLength = Int(try reader.readUInt16())
            let type = try reader.read(typeLength)
            guard typeLength <= Self.maximumContentTypeLength, type.allSatisfy({ (0x20...0x7e).contains($0) }) else {
                throw BinaryReader.ShortRead()
            }
            let time = Int64(bitPattern: try reader.readUInt64())
            guard reader.remaining == 0 else { throw BinaryReader.ShortRead() }
            self.init(name: name, contentType: String(decoding: type, as: UTF8.self), modificationTime: time)
        } catch {
            throw CryptoVaultError(.corruptBundle, "header: the sealed metadata is malformed")
        }
    }
}
