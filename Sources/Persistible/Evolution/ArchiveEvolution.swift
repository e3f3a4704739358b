import Foundation

/// What a type declares about its earlier versions: the defaults for keys a record lacks and the migrations from
/// older types, as an archive applies them while decoding.
///
/// The declarations are read when a file is decoded, not when an archive is made: most operations decode nothing
/// (a load of an unchanged file costs a `stat`), and they should not pay for building migrations they never use.
struct ArchiveEvolution<Value: Codable>: Sendable {
    private let source: (any EvolutionSource<Value>)?
    /// The encoding of a value that fills what a record still lacks after the declared defaults, one key at a time
    /// as the decoder asks for it: the default value a settings call was given.
    private(set) var fallback: Data?

    static var none: Self { Self(source: nil) }

    private init(source: (any EvolutionSource<Value>)?) {
        self.source = source
    }

    /// These declarations, with what a record still lacks taken from `encoding`.
    func filling(from encoding: Data) -> Self {
        var filling = self
        filling.fallback = encoding
        return filling
    }

    /// The type's migrations, in the declared order.
    var migrations: [ArchiveMigration<Value>] { source?.migrations ?? [] }

    /// Whether the type declares neither defaults nor migrations.
    var isEmpty: Bool {
        guard fallback == nil else { return false }
        guard let source else { return true }
        return !source.hasDefaults && source.migrations.isEmpty
    }

    /// Whether reads skip the records of an array that no version reads, and writes keep them as stored (see
    /// ``Persistible/archiveSkipsUnreadableRecords``).
    var skipsUnreadable: Bool { source?.skipsUnreadable ?? false }

    /// The encoding of the type's defaults, or `nil` when it declares none.
    func encodedDefaults(with encoder: JSONEncoder) throws -> Data? {
        try source?.encodedDefaults(with: encoder)
    }

    /// What `type` declares, when it is ``Persistible``; nothing otherwise.
    ///
    /// Looked up at run time, so that a store made by generic code, which knows the type only as `Codable &
    /// Hashable`, honors the type's own choice too.
    static func declared(by type: Value.Type) -> Self {
        guard let persistible = type as? any Persistible.Type else { return .none }
        return Self(source: source(persistible))
    }

    private static func source<Declaring: Persistible>(_ type: Declaring.Type) -> (any EvolutionSource<Value>)? {
        DeclaredEvolution<Declaring>() as? any EvolutionSource<Value>
    }
}

extension ArchiveEvolution where Value: Persistible {
    /// What the type declares, known statically.
    static var declared: Self { Self(source: DeclaredEvolution<Value>()) }
}

/// Where an archive's defaults and migrations come from; a type rather than closures, so that no metatype is
/// captured.
protocol EvolutionSource<Value>: Sendable {
    associatedtype Value
    var hasDefaults: Bool { get }
    var migrations: [ArchiveMigration<Value>] { get }
    var skipsUnreadable: Bool { get }
    func encodedDefaults(with encoder: JSONEncoder) throws -> Data?
}

/// What a ``Persistible`` type declares, read each time it is needed.
private struct DeclaredEvolution<Declaring: Persistible>: EvolutionSource {
    var hasDefaults: Bool { Declaring.archiveDefaults != nil }

    var migrations: [ArchiveMigration<Declaring>] { Declaring.archiveMigrations }

    var skipsUnreadable: Bool { Declaring.archiveSkipsUnreadableRecords }

    func encodedDefaults(with encoder: JSONEncoder) throws -> Data? {
        guard let defaults = Declaring.archiveDefaults as? any Encodable else { return nil }
        return try encoder.encode(defaults)
    }
}

// MARK: - Defaults

/// The members of ``Persistible/archiveDefaults``'s encoding, ready to be inserted into records that lack them.
struct DefaultsObject {
    struct Member {
        /// The key as the encoder wrote it, inside the quotes.
        var key: Data
        /// The key unescaped, as the decoder's strategy takes it.
        var name: String
        /// `"key":value`, to insert.
        var text: Data
        /// The value's own members, when it is an object: filled in a record's object under the same key.
        var child: DefaultsObject?
    }

    var members: [Member]
    /// How the decoder reads keys: a record may hold a key under another spelling than the encoder's.
    let keys: KeyReading
    /// Whether a stored key of plain ASCII may be one of these keys without the same bytes: the decoder converts
    /// keys, or one of these is escaped or not ASCII.
    private let matchesOtherSpellings: Bool

    /// The defaults in `encoding`, or `nil` if it is not a JSON object.
    init?(encoding: Data, keys: KeyReading) {
        guard let tree = JSONTree.parse(encoding) else { return nil }
        self.init(encoding, tree, keys: keys)
    }

    private init?(_ encoding: Data, _ tree: JSONTree, keys: KeyReading) {
        guard case .object(let members, _) = tree else { return nil }
        self.keys = keys
        matchesOtherSpellings = !keys.readsAsSpelled || members.contains { member in
            encoding[offsets: member.keyRange].contains(where: Self.mayBeSpelledOtherwise)
        }
        self.members = members.map { member in
            let key = encoding[offsets: member.keyRange]
            var text = Data("\"".utf8)
            text.append(key)
            text.append(contentsOf: Array("\":".utf8))
            text.append(encoding[offsets: member.value.range])
            return Member(
                key: Data(key), name: member.key, text: text, child: DefaultsObject(encoding, member.value, keys: keys)
            )
        }
    }

    /// Where to insert what the object at `range` of `buffer` lacks, at every depth: each as an offset into
    /// `buffer` and the bytes to insert there, appended to `insertions` in increasing order of offset.
    ///
    /// A key counts as held when the record holds it under any spelling the decoder reads as that key.
    ///
    /// - Parameter path: The keys above the object, as the type reads them.
    /// - Returns: `false` if the bytes at `range` are not an object; nothing is added then.
    func insertions(
        into buffer: UnsafeRawBufferPointer, at range: Range<Int>, path: [String] = [],
        _ insertions: inout [(offset: Int, text: Data)]
    ) -> Bool {
        var found = [JSONScanner.Member?](repeating: nil, count: members.count)
        var count = 0
        // Whether a stored key the bytes did not match may still be a default's key under another spelling.
        var spelledOtherwise = matchesOtherSpellings
        let isObject = JSONScanner.forEachMember(in: buffer, at: range) { stored in
            count += 1
            let key = UnsafeRawBufferPointer(rebasing: buffer[stored.key.shifted(by: range.lowerBound)])
            for index in members.indices where found[index] == nil && members[index].key.count == key.count {
                if members[index].key.withUnsafeBytes({ $0.elementsEqual(key) }) {
                    found[index] = stored
                    return
                }
            }
            // A key of plain ASCII that the decoder reads as spelled is itself or nothing.
            spelledOtherwise = spelledOtherwise || key.contains(where: Self.mayBeSpelledOtherwise)
        }
        guard isObject else { return false }
        if spelledOtherwise, found.contains(where: { $0 == nil }) {
            matchSpellings(in: buffer, at: range, path: path, &found)
        }
        var missing = Data()
        for (index, member) in members.enumerated() where found[index] == nil {
            if !missing.isEmpty { missing.append(UInt8(ascii: ",")) }
            missing.append(member.text)
        }
        if !missing.isEmpty {
            if count > 0 { missing.append(UInt8(ascii: ",")) }
            // Right after the opening brace, so that the offsets of everything below stay in order.
            let brace = buffer[range].firstIndex(of: UInt8(ascii: "{"))!
            insertions.append((brace + 1, missing))
        }
        // Members are visited in stored order, so nested insertions come out in increasing order too.
        let nested = members.indices.compactMap { index -> (JSONScanner.Member, DefaultsObject, String)? in
            guard let stored = found[index], let child = members[index].child else { return nil }
            return (stored.shifted(by: range.lowerBound), child, members[index].name)
        }.sorted { $0.0.value.lowerBound < $1.0.value.lowerBound }
        for (stored, child, name) in nested where buffer[stored.value.lowerBound] == UInt8(ascii: "{") {
            // A decoder that reads keys as spelled needs no path, which would cost every record an array.
            let below = keys.readsAsSpelled ? path : path + [keys.read(name, at: path)]
            _ = child.insertions(into: buffer, at: stored.value, path: below, &insertions)
        }
        return true
    }

    /// Whether a key holding `byte` may spell what other bytes spell too: an escape, or a character that has
    /// other canonically equivalent forms.
    private static func mayBeSpelledOtherwise(_ byte: UInt8) -> Bool {
        byte >= 0x80 || byte == UInt8(ascii: "\\")
    }

    /// Finds, for each member `found` lacks, a stored key of the object at `range` that the decoder reads as it: a
    /// second scan, paid only by records that lack a key as the encoder spells it.
    private func matchSpellings(
        in buffer: UnsafeRawBufferPointer, at range: Range<Int>, path: [String], _ found: inout [JSONScanner.Member?]
    ) {
        let missing = members.indices.filter { found[$0] == nil }
        _ = JSONScanner.forEachMember(in: buffer, at: range) { stored in
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[stored.key.shifted(by: range.lowerBound)])
            guard let key = JSONScanner.unescaped(bytes) else { return }
            if let index = missing.first(where: { found[$0] == nil && keys.same(key, members[$0].name, at: path) }) {
                found[index] = stored
            }
        }
    }
}

extension DefaultsObject {
    /// `record` with these defaults filled, or `nil` when it lacks none of them.
    func filled(_ record: Data) -> Data? {
        let (bytes, _, filled) = fill(record, records: [0..<record.count])
        return filled.isEmpty ? nil : bytes
    }

    /// Only the member at `path`, the keys as the type reads them, in the objects above it; `nil` if these
    /// defaults hold nothing there.
    func only(at path: [String], under parents: [String] = []) -> DefaultsObject? {
        guard let key = path.first,
            var member = members.first(where: { keys.read($0.name, at: parents) == key })
        else { return nil }
        if path.count > 1 {
            guard let child = member.child?.only(at: Array(path.dropFirst()), under: parents + [key]) else {
                return nil
            }
            member.child = child
        }
        var only = self
        only.members = [member]
        return only
    }

    /// `bytes` with the records at `ranges` filled from these defaults, the records' ranges in the result, and
    /// which records gained a key.
    func fill(_ bytes: Data, records ranges: [Range<Int>]) -> (bytes: Data, ranges: [Range<Int>], filled: IndexSet) {
        var filled = IndexSet()
        var insertions: [(offset: Int, text: Data)] = []
        var recordInsertions: [Range<Int>] = []
        bytes.withUnsafeBytes { buffer in
            for (index, range) in ranges.enumerated() {
                let before = insertions.count
                _ = self.insertions(into: buffer, at: range, &insertions)
                recordInsertions.append(before..<insertions.count)
                if insertions.count > before { filled.insert(index) }
            }
        }
        guard !filled.isEmpty else { return (bytes, ranges, filled) }
        var result = Data()
        result.reserveCapacity(bytes.count + insertions.reduce(0) { $0 + $1.text.count })
        var newRanges: [Range<Int>] = []
        newRanges.reserveCapacity(ranges.count)
        var copied = 0
        let base = bytes.startIndex
        for (index, range) in ranges.enumerated() {
            result.append(bytes[(base + copied)..<(base + range.lowerBound)])
            copied = range.lowerBound
            let start = result.count
            for insertion in insertions[recordInsertions[index]] {
                result.append(bytes[(base + copied)..<(base + insertion.offset)])
                copied = insertion.offset
                result.append(insertion.text)
            }
            result.append(bytes[(base + copied)..<(base + range.upperBound)])
            copied = range.upperBound
            newRanges.append(start..<result.count)
        }
        result.append(bytes[(base + copied)...])
        return (result, newRanges, filled)
    }
}
