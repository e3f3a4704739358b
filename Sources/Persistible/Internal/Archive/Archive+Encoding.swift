import Foundation

// MARK: - Encoding

extension Archive {
    /// Encodes a value in the file's format.
    func encode<T: Encodable>(_ value: T) throws(PersistenceError) -> Data {
        do {
            return Self.closingEmptyContainers(try encoder.encode(value))
        } catch let error as EncodingError {
            throw failure(.encodingFailed(detail: Self.describe(error)))
        } catch {
            throw failure(.encodingFailed(detail: String(describing: error)))
        }
    }

    /// How many values `encode(array:)` encodes at a time.
    static var sliceLength: Int { 4096 }

    /// Encodes an array in the file's format.
    ///
    /// A long array is encoded a slice at a time and the slices spliced together. The bytes are those of encoding it
    /// whole (and a final newline), but the encoder's tree of intermediate values stays small: measured on 100,000
    /// records, 10% faster.
    func encode(array values: [Value]) throws(PersistenceError) -> Data {
        let length = Self.sliceLength
        guard values.count > length else { return try encode(values) }
        let splice = JSONArraySplice(encoder: encoder)
        var bytes = try encode(Array(values[..<length]))
        var start = length
        while start < values.endIndex {
            let end = min(start + length, values.endIndex)
            guard splice.append(try encode(Array(values[start..<end])), to: &bytes) != nil else {
                // A format the splice does not know: encode it whole.
                return try encode(values)
            }
            start = end
        }
        return bytes
    }

    /// The file's bytes once the values encoded in `additions` follow the values of `state`: spliced into
    /// `state.bytes` when the file holds an array, so existing values are not encoded again; else, when some
    /// records are stale, rewritten with every other record's bytes kept; else `allValues` encoded whole.
    ///
    /// It takes `state.bytes`, so that the splice changes the only copy in place instead of copying the file.
    ///
    /// - Parameter storedCount: How many records the file holds: the first of `allValues`, as read. A store hands
    ///   its values to its writer, so `state.values` may be empty.
    /// - Returns: The bytes, and the part of them the file holds already, for the write to keep rather than write
    ///   again; `nil` when they were encoded whole.
    func bytes(
        appending additions: Data,
        to state: inout ArchiveState<Value>,
        storedCount: Int,
        allValues: @autoclosure () -> [Value]
    ) throws(PersistenceError) -> (bytes: Data, unchangedPrefix: AtomicFile.UnchangedPrefix?) {
        if !state.unreadable.isEmpty {
            try refuseIdentitiesOfUnreadable(in: state, written: allValues().dropFirst(storedCount))
        }
        // Records that needed a default or a migration are written anew, in the current format.
        if !state.isSingleValue, state.stale.isEmpty, splices {
            var bytes = Data()
            swap(&bytes, &state.bytes)
            if let kept = JSONArraySplice(encoder: encoder).append(additions, to: &bytes) {
                return (bytes, AtomicFile.UnchangedPrefix(length: kept, identity: state.identity))
            }
            swap(&bytes, &state.bytes)
        }
        let values = allValues()
        let existing = storedCount
        let sources = (0..<values.count).map { $0 < existing ? RecordSource.unchanged($0) : .new }
        if let rewrite = try rewriteKeepingUntouched(
            state, storedCount: existing, records: values, sources: sources, originals: [:]
        ) {
            return (rewrite.bytes, unchangedPrefix(of: rewrite, replacing: state))
        }
        return (try encode(array: values), nil)
    }

    /// `bytes` with each empty array or object written `[]` or `{}`, where a pretty-printing encoder writes a blank
    /// line between the brackets.
    ///
    /// A newline in JSON is never inside a string, so a bracket followed by two newlines is always an empty
    /// container's opening.
    static func closingEmptyContainers(_ bytes: Data) -> Data {
        let newline = UInt8(ascii: "\n"), space = UInt8(ascii: " ")
        return bytes.withUnsafeBytes { buffer -> Data in
            var result: Data?
            // Copied in runs between the empty containers: a record with an empty array in each of many records
            // would otherwise cost a byte-by-byte copy of the whole file.
            var copied = 0
            var index = 0
            while let open = buffer[index...].firstIndex(of: newline).map({ $0 - 1 }) {
                index = open + 2
                guard open >= 0, buffer[open] == UInt8(ascii: "[") || buffer[open] == UInt8(ascii: "{"),
                    index < buffer.count, buffer[index] == newline
                else { continue }
                var closing = index + 1
                while closing < buffer.count, buffer[closing] == space { closing += 1 }
                // "]" follows "[", "}" follows "{".
                guard closing < buffer.count, buffer[closing] == buffer[open] + 2 else { continue }
                if result == nil { result = Data(capacity: buffer.count) }
                result!.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[copied...open]))
                copied = closing
                index = closing
            }
            guard var result else { return bytes }
            result.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[copied...]))
            return result
        }
    }

    /// Writes `bytes` as the whole file under the lock the caller holds, first ending them with a newline, as
    /// editors and command-line tools expect of a text file: every write of a file goes through here, so that the
    /// bytes a state keeps are the file's.
    func writeWhole(
        _ bytes: inout Data, to file: AtomicFile, unchangedPrefix: AtomicFile.UnchangedPrefix?
    ) throws -> FileIdentity {
        if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
        return try file.write(bytes, unchangedPrefix: unchangedPrefix, durability: durability)
    }

    private static func describe(_ error: EncodingError) -> String {
        switch error {
        case .invalidValue(_, let context): return context.debugDescription
        @unknown default: return String(describing: error)
        }
    }
}
