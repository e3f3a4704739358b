import Foundation

/// One JSON file of `Value`s and the operations on it: read without a lock, change under the lock, write atomically.
///
/// The public API and the stores describe *what* to save; this type is the one place that decides *how*.
struct Archive<Value: Codable & Hashable> {
    let url: URL
    let typeName: String
    let encoder: JSONEncoder
    let decoder: JSONDecoder
    let durability: Durability

    init(url: URL, typeName: String, encoder: JSONEncoder, decoder: JSONDecoder, durability: Durability) {
        self.url = url
        self.typeName = typeName
        self.encoder = encoder
        self.decoder = decoder
        self.durability = durability
    }

    func failure(_ reason: PersistenceError.Reason) -> PersistenceError {
        PersistenceError(reason, url: url, typeName: typeName)
    }

    /// Turns whatever the internals threw into the public error.
    func translate(_ error: any Error) -> PersistenceError {
        switch error {
        case let error as PersistenceError: return error
        case let error as SystemError: return failure(error.reason)
        case let error as EncodingError: return failure(.encodingFailed(detail: Self.describe(error)))
        default: return failure(.encodingFailed(detail: String(describing: error)))
        }
    }

    // MARK: - Reading

    /// What the file holds now, or `nil` if there is no file. Takes no lock: writers rename whole files into place.
    func read() throws(PersistenceError) -> ArchiveSnapshot<Value>? {
        try read(atPath: url.path)
    }

    func read(atPath path: String) throws(PersistenceError) -> ArchiveSnapshot<Value>? {
        let bytes: Data
        let identity: FileIdentity
        do {
            guard let file = try FileReader.contents(atPath: path) else { return nil }
            (bytes, identity) = file
        } catch {
            throw translate(error)
        }
        return ArchiveSnapshot(bytes: bytes, identity: identity, contents: try decode(bytes))
    }

    /// Decodes a file's bytes as a `Value` or a `[Value]`, whichever they hold.
    func decode(_ bytes: Data) throws(PersistenceError) -> PersistenceData<Value> {
        // The first byte says which to try, so an array file is decoded once, not first tried as a single value.
        let opensArray = bytes.first(where: { !isJSONWhitespace($0) }) == UInt8(ascii: "[")
        do {
            if opensArray {
                return .array(try decoder.decode([Value].self, from: bytes))
            }
            return .single(try decoder.decode(Value.self, from: bytes))
        } catch {
            // A value whose own encoding is a JSON array is a single value that opens with "[".
            if opensArray, let single = try? decoder.decode(Value.self, from: bytes) {
                return .single(single)
            }
            throw unreadable(error, bytes: bytes)
        }
    }

    private func unreadable(_ error: any Error, bytes: Data) -> PersistenceError {
        guard !bytes.allSatisfy(isJSONWhitespace) else {
            return failure(.unreadable(codingPath: "", detail: "The file is empty."))
        }
        guard let error = error as? DecodingError else {
            return failure(.unreadable(codingPath: "", detail: String(describing: error)))
        }
        let context: DecodingError.Context
        switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c):
            context = c
        @unknown default:
            return failure(.unreadable(codingPath: "", detail: String(describing: error)))
        }
        var path = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
        if path.hasPrefix(".") { path.removeFirst() }
        var detail = context.debugDescription
        if case .keyNotFound(let key, _) = error { detail = "No value for the key '\(key.stringValue)'." }
        if let underlying = context.underlyingError { detail += " (\(underlying.localizedDescription))" }
        return failure(.unreadable(codingPath: path, detail: detail))
    }

    private static func describe(_ error: EncodingError) -> String {
        switch error {
        case .invalidValue(_, let context): return context.debugDescription
        @unknown default: return String(describing: error)
        }
    }

    // MARK: - Writing

    /// Runs `body` holding the file's lock, with the file to write; creates the directory if needed.
    ///
    /// The file's symbolic links are resolved first, so the lock sits beside the real file and every link to it
    /// shares that lock.
    func withWriteAccess<Result>(
        creatingDirectory: Bool = true,
        _ body: (AtomicFile) throws -> Result
    ) throws(PersistenceError) -> Result {
        do {
            let file = try AtomicFile(resolving: url.path)
            let lock = FileLock(protecting: file.path)
            do {
                return try lock.withLock {
                    file.removeAbandonedTemporaries()
                    return try body(file)
                }
            } catch let error as SystemError where error.phase == .lock && error.code == ENOENT && creatingDirectory {
                try Directory.create(atPath: (file.path as NSString).deletingLastPathComponent, durability: durability)
                return try lock.withLock { try body(file) }
            }
        } catch {
            throw translate(error)
        }
    }

    /// Encodes values in the file's format.
    func encode<T: Encodable>(_ value: T) throws(PersistenceError) -> Data {
        do {
            return try encoder.encode(value)
        } catch {
            throw translate(error)
        }
    }

    /// Adds the values not yet in the file, after the ones that are, under the lock; writes nothing if none is new.
    ///
    /// A file that does not exist receives `incoming` as written: a single value when `asSingleValue` is set,
    /// else the array without its duplicates. A file that cannot be read is left alone and the error thrown.
    func merge(_ incoming: [Value], asSingleValue: Bool) throws(PersistenceError) {
        try withWriteAccess { file in
            guard let current = try read(atPath: file.path) else {
                let bytes = asSingleValue ? try encode(incoming[0]) : try encode(Self.unique(incoming))
                try file.write(bytes, durability: durability)
                return
            }
            var members = Set(current.contents.values)
            let additions = incoming.filter { members.insert($0).inserted }
            guard !additions.isEmpty else { return }
            let bytes: Data
            switch current.contents {
            case .single(let existing):
                bytes = try encode([existing] + additions)
            case .array(let existing):
                let encodedAdditions = try encode(additions)
                bytes = try JSONArraySplice(encoder: encoder).appending(encodedAdditions, to: current.bytes)
                    ?? encode(existing + additions)
            }
            try file.write(bytes, durability: durability)
        }
    }

    /// Removes the file under the lock; a missing file is not an error.
    func delete() throws(PersistenceError) {
        do {
            try withWriteAccess(creatingDirectory: false) { file in try file.remove(durability: durability) }
        } catch where error.reason == .lockFailed(operation: "open lock file", errno: ENOENT) {
            // No directory, so no file.
        }
    }

    static func unique(_ values: [Value]) -> [Value] {
        var seen = Set<Value>()
        return values.filter { seen.insert($0).inserted }
    }
}

/// A file's bytes, their identity and what they decode to.
struct ArchiveSnapshot<Value> {
    var bytes: Data
    var identity: FileIdentity
    var contents: PersistenceData<Value>
}
