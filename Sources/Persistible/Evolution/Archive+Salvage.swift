import Foundation

// MARK: - Salvage

extension Archive {
    /// Every record of the file that some version reads, and each one that none does, with its bytes; writes
    /// nothing.
    func salvage() throws(PersistenceError) -> SalvagedRecords<Value> {
        guard let (bytes, _) = try contents(atPath: path) else { throw failure(.fileNotFound) }
        if let decoded = try? decode(bytes) {
            return SalvagedRecords(
                values: decoded.contents.values, unreadable: unreadableRecords(at: decoded.unreadable, in: bytes)
            )
        }
        let defaults = defaultsObject()
        // A file that holds one value, and does not open an array, is that value; any other is read as an array,
        // whose opening may be what is damaged.
        if let range = JSONScanner.valueRange(of: bytes), bytes[bytes.startIndex + range.lowerBound] != UInt8(ascii: "[") {
            switch decodeRecord(bytes, at: range, defaults: defaults, index: nil) {
            case .success(let (value, _)): return SalvagedRecords(values: [value], unreadable: [])
            case .failure(let mismatch):
                return SalvagedRecords(values: [], unreadable: [Self.unreadableRecord(mismatch, index: 0, bytes: bytes, range: range)])
            }
        }
        var values: [Value] = []
        var unreadable: [UnreadableRecord] = []
        for (index, part) in JSONScanner.arrayParts(of: bytes).enumerated() {
            switch part {
            case .record(let range):
                switch decodeRecord(bytes, at: range, defaults: defaults, index: index) {
                case .success(let (value, _)): values.append(value)
                case .failure(let mismatch):
                    unreadable.append(Self.unreadableRecord(mismatch, index: index, bytes: bytes, range: range))
                }
            case .damaged(let range, let error):
                unreadable.append(UnreadableRecord(
                    index: index, codingPath: "[\(index)]", message: error.description,
                    bytes: bytes[offsets: range],
                    byteRange: range
                ))
            }
        }
        return SalvagedRecords(values: values, unreadable: unreadable)
    }

    /// The records at `positions` of the array in `bytes`, which no version reads, with what each version said; the
    /// records are decoded again, so that reads that skip them pay nothing until someone asks.
    ///
    /// - Parameter known: Where the records lie in `bytes`, when known.
    func unreadableRecords(
        at positions: IndexSet, in bytes: Data, ranges known: [Range<Int>]? = nil
    ) -> [UnreadableRecord] {
        guard !positions.isEmpty, let ranges = known ?? JSONScanner.elementRanges(of: bytes) else { return [] }
        let defaults = defaultsObject()
        return positions.compactMap { index in
            guard case .failure(let mismatch) = decodeRecord(bytes, at: ranges[index], defaults: defaults, index: index)
            else { return nil }
            return Self.unreadableRecord(mismatch, index: index, bytes: bytes, range: ranges[index])
        }
    }

    /// The records of the file that reads skip, as it is now: none when there is no file.
    func unreadableRecords() throws(PersistenceError) -> [UnreadableRecord] {
        guard let state = try read() else { return [] }
        return unreadableRecords(at: state.unreadable, in: state.bytes, ranges: state.recordRanges)
    }

    private static func unreadableRecord(
        _ mismatch: VersionMismatch, index: Int, bytes: Data, range: Range<Int>
    ) -> UnreadableRecord {
        let message = mismatch.attempts.map { attempt in
            let at = attempt.codingPath.isEmpty ? "" : " at \(attempt.codingPath)"
            return "As \(attempt.typeName)\(at): \(attempt.detail)"
        }.joined(separator: " ")
        return UnreadableRecord(
            index: index, codingPath: mismatch.attempts.first?.codingPath ?? "", message: message,
            bytes: bytes[offsets: range],
            byteRange: range
        )
    }

    // MARK: - Move aside

    /// Renames the file, under the lock, to a name beside it that says why and when; never replaces a file.
    ///
    /// - Returns: Where the file went.
    func moveAside(at date: Date = Date()) throws -> URL {
        do {
            return try withWriteAccess(creatingDirectory: false) { file in
                ArchiveCache.remove(path: path)
                guard try file.kind() != nil else { throw failure(.fileNotFound) }
                // Only a word for the name: a file too large, or not readable by this user, is still moved, since
                // a rename needs nothing but write access to the directory.
                let decodes = (try? contents(atPath: file.path))?.flatMap { try? decode($0.0) } != nil
                let why = decodes ? "moved-aside" : "unreadable"
                let stem = ((file.path as NSString).lastPathComponent as NSString).deletingPathExtension
                let directory = (file.path as NSString).deletingLastPathComponent
                let formatter = ISO8601DateFormatter()
                formatter.formatOptions = [.withYear, .withMonth, .withDay, .withTime, .withTimeZone]
                let when = formatter.string(from: date)
                let names = (1...).lazy.map { attempt in
                    "\(directory)/\(stem).\(why)-\(when)\(attempt == 1 ? "" : "-\(attempt)").json"
                }
                let moved = try FileRename.renameWithoutReplacing(file.path, to: names, durability: durability)
                return URL(fileURLWithPath: moved, isDirectory: false)
            }
        } catch let error as PersistenceError where error.isMissingDirectory {
            // No directory, so no file.
            throw failure(.fileNotFound)
        }
    }
}
