import TestSupport

/// testvectors/sync/exchange-messages.json (written by the independent sync_exchange.py from
/// SECURITY.md §19.9 alone) as types, read by TestSupport's one vector loader.
struct SyncWireVectors: Decodable {
    struct Message: Decodable {
        let name: String
        let kind: String
        let direction: String
        let hex: HexBytes
        let fields: Fields?
    }

    /// A message's fields, whichever message it is: each message kind has its own few, the rest
    /// are nil. A field this type does not know fails the load, so the comparison with what the
    /// Swift parser reads stays whole.
    struct Fields: Decodable, Equatable {
        struct Member: Decodable, Equatable {
            let device: String
            let signingKey: String
            let noiseKey: String
        }

        struct Offer: Decodable, Equatable {
            let project: String
            let access: String
            let origin: String?
            let roleSince: UInt64
            let privileged: Bool
            let kind: String
            let register: String
            let name: String
            let roster: [Member]
        }

        /// A device an own device demoted (`sync.demotions`).
        struct Demotion: Decodable, Equatable {
            let device: String
            let signingKey: String
            let demotedAt: UInt64
            let demotedBy: String
            let signature: String
        }

        /// `[id, value]`, as the file writes a vector's entry or a taken offer.
        struct Pair<Value: Decodable & Equatable>: Decodable, Equatable {
            let id: String
            let value: Value

            init(id: String, value: Value) {
                self.id = id
                self.value = value
            }

            init(from decoder: any Decoder) throws {
                var pair = try decoder.unkeyedContainer()
                id = try pair.decode(String.self)
                value = try pair.decode(Value.self)
                guard pair.isAtEnd else {
                    throw DecodingError.dataCorruptedError(in: pair, debugDescription: "a pair with more than two values")
                }
            }
        }

        var offers: [Offer]? = nil
        var taken: [Pair<Bool>]? = nil
        var project: String? = nil
        var held: [Pair<UInt64>]? = nil
        /// A pull's tips: `[device, hash]`.
        var tips: [Pair<String>]? = nil
        var more: Bool? = nil
        var records: [String]? = nil
        var stored: Int? = nil
        var refused: [String]? = nil
        /// A `sync.projects` request's project to follow (the first page has none).
        var after: String? = nil
        /// A `sync.projects` request's projects the asker holds (none said: nil).
        var heldProjects: [String]? = nil
        var demotions: [Demotion]? = nil

        private enum CodingKeys: String, CodingKey, CaseIterable {
            case offers, taken, project, held, tips, more, records, stored, refused, after, heldProjects, demotions
        }

        private struct AnyKey: CodingKey {
            let stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(offers: [Offer]? = nil, taken: [Pair<Bool>]? = nil, project: String? = nil, held: [Pair<UInt64>]? = nil,
             tips: [Pair<String>]? = nil, more: Bool? = nil, records: [String]? = nil, stored: Int? = nil, refused: [String]? = nil,
             after: String? = nil, heldProjects: [String]? = nil, demotions: [Demotion]? = nil) {
            (self.offers, self.taken, self.project, self.held, self.tips, self.after, self.demotions) = (offers, taken, project, held, tips, after, demotions)
            self.heldProjects = heldProjects
            (self.more, self.records, self.stored, self.refused) = (more, records, stored, refused)
        }

        init(from decoder: any Decoder) throws {
            let unknown = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
                .filter { CodingKeys(rawValue: $0) == nil }
            guard unknown.isEmpty else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "fields the vector types do not know: \(unknown)"))
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            offers = try container.decodeIfPresent([Offer].self, forKey: .offers)
            taken = try container.decodeIfPresent([Pair<Bool>].self, forKey: .taken)
            project = try container.decodeIfPresent(String.self, forKey: .project)
            held = try container.decodeIfPresent([Pair<UInt64>].self, forKey: .held)
            heldProjects = try container.decodeIfPresent([String].self, forKey: .heldProjects)
            tips = try container.decodeIfPresent([Pair<String>].self, forKey: .tips)
            more = try container.decodeIfPresent(Bool.self, forKey: .more)
            records = try container.decodeIfPresent([String].self, forKey: .records)
            stored = try container.decodeIfPresent(Int.self, forKey: .stored)
            refused = try container.decodeIfPresent([String].self, forKey: .refused)
            after = try container.decodeIfPresent(String.self, forKey: .after)
            demotions = try container.decodeIfPresent([Demotion].self, forKey: .demotions)
        }
    }

    /// Messages that parse to `fields` and encode back to `hex`.
    let valid: [Message]
    /// Variants every reader refuses as malformed (no `fields`).
    let invalid: [Message]

    /// A known answer for the signature of a demotion entry (review s10 on 365790f): the bytes
    /// signed, and whether the signature verifies with the demoting device's public key (the seed
    /// of that key where it does, so signing gives the same signature).
    struct DemotionSignature: Decodable {
        let name: String
        let publicKey: HexBytes
        let seed: HexBytes?
        let device: HexBytes
        let signingKey: HexBytes
        let demotedBy: HexBytes
        let demotedAt: UInt64
        let signingInput: HexBytes
        let signature: HexBytes
        let verifies: Bool
    }

    let demotionSignatures: [DemotionSignature]
}
