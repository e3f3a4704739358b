#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// MARK: - Salvage

extension Persistible where Self: Codable & Hashable {
    /// Reads the file record by record, on past damage, and returns what decodes and what does not; writes nothing
    /// (see <doc:ModelEvolution#Salvage-and-move-aside>).
    ///
    /// - Returns: The readable values, in stored order, and the unreadable records with their bytes as stored.
    /// - Throws: ``PersistenceError`` with ``PersistenceError/Reason/fileNotFound`` if there is no file, or a reason
    ///   it lists for any operation other than `unreadable`.
    public static func salvageFile() throws -> SalvagedRecords<Self> {
        try archive().salvage()
    }

    /// The records of the file that no version of the type reads, which loads skip and writes keep as they are when
    /// ``archiveSkipsUnreadableRecords`` is `true`; asking costs nothing when every record reads.
    ///
    /// - Returns: The records no version reads, in stored order; none when there is no file.
    /// - Throws: ``PersistenceError``, as ``loadFromFile()`` does (for a type that does not skip them, on the first
    ///   such record), except that a missing file is no error.
    public static func unreadableRecords() throws -> [UnreadableRecord] {
        try archive().unreadableRecords()
    }

    /// Renames the file to a new name beside it that says why and when, never replacing a file there (see
    /// <doc:ModelEvolution#Salvage-and-move-aside>).
    ///
    /// - Returns: The file's new location.
    /// - Throws: ``PersistenceError`` with ``PersistenceError/Reason/fileNotFound`` if there is no file, or a reason
    ///   it lists for any write, such as ``PersistenceError/Reason/writeFailed(operation:errno:)`` if the rename fails.
    @discardableResult
    public static func moveFileAside() throws -> URL {
        try archive().moveAside()
    }
}

extension Archive {
    func salvage() throws(PersistenceError) -> SalvagedRecords<Value> {
        guard let (bytes, identity) = try contents(atPath: path, resolvingLinks: true) else {
            throw failure(.fileNotFound)
        }
        if let decoded = try? decode(bytes, identity: identity) {
            return SalvagedRecords(
                values: decoded.contents.values, unreadable: unreadableRecords(at: decoded.unreadable, in: bytes)
            )
        }
        // A file that holds one value, and does not open an array, is that value; any other is read as an array,
        // whose opening may be what is damaged.
        let single = JSONScanner.valueRange(of: bytes).flatMap { range in
            bytes[offsets: range].first == UInt8(ascii: "[") ? nil : range
        }
        let parts = single.map { [JSONScanner.ArrayPart.record($0)] } ?? JSONScanner.arrayParts(of: bytes)
        let reading = recordReading()
        var salvaged = SalvagedRecords<Value>(values: [], unreadable: [])
        for (index, part) in parts.enumerated() {
            switch part {
            case .record(let range):
                switch decodeRecord(bytes, at: range, reading: reading, index: single == nil ? index : nil) {
                case .success(let (value, _)):
                    salvaged.values.append(value)
                case .failure(let mismatch):
                    let record = Self.unreadableRecord(mismatch, index: index, bytes: bytes, range: range)
                    salvaged.unreadable.append(record)
                }
            case .damaged(let range, let error):
                salvaged.unreadable.append(UnreadableRecord(
                    index: index, codingPath: "[\(index)]", message: error.description, bytes: bytes[offsets: range],
                    byteRange: range
                ))
            }
        }
        return salvaged
    }

    /// The records at `positions` of the array in `bytes` (at `known`, when known), decoded again to say what each
    /// version said: reads that skip them pay nothing until someone asks.
    func unreadableRecords(
        at positions: RecordPositions, in bytes: Data, ranges known: [Range<Int>]? = nil
    ) -> [UnreadableRecord] {
        guard !positions.isEmpty, let ranges = known ?? JSONScanner.elementRanges(of: bytes) else { return [] }
        let reading = recordReading()
        return positions.compactMap { index in
            guard case .failure(let mismatch) = decodeRecord(bytes, at: ranges[index], reading: reading, index: index)
            else { return nil }
            return Self.unreadableRecord(mismatch, index: index, bytes: bytes, range: ranges[index])
        }
    }

    func unreadableRecords() throws(PersistenceError) -> [UnreadableRecord] {
        guard let state = try read() else { return [] }
        return unreadableRecords(at: state.unreadable, in: state.bytes, ranges: state.recordRanges)
    }

    private static func unreadableRecord(
        _ mismatch: VersionMismatch, index: Int, bytes: Data, range: Range<Int>
    ) -> UnreadableRecord {
        let message = mismatch.attempts.map { "As \($0.typeName)\(PersistenceError.at($0.codingPath)): \($0.detail)" }
            .joined(separator: " ")
        return UnreadableRecord(
            index: index, codingPath: mismatch.attempts.first?.codingPath ?? "", message: message,
            bytes: bytes[offsets: range], byteRange: range
        )
    }

    // MARK: - Move aside

    func moveAside(at date: Date = Date()) throws -> URL {
        do {
            return try withWriteAccess(creatingDirectory: false) { file in
                ArchiveCache.remove(path: path)
                guard try FileSystem.entryStatus(file.path) != nil else { throw failure(.fileNotFound) }
                // Only a word for the name: a file too large, or not readable by this user, is still moved, since
                // a rename needs nothing but write access to the directory.
                let decodes = (try? contents(atPath: file.path))?.flatMap { try? decode($0.0, identity: $0.1) } != nil
                let why = decodes ? "moved-aside" : "unreadable"
                // The name without its extension, `Person` of `Person.json`; a leading dot is part of the name.
                let dot = file.name.lastIndex(of: ".").flatMap { $0 == file.name.startIndex ? nil : $0 }
                let stem = dot.map { String(file.name[..<$0]) } ?? file.name
                let when = date.formatted(.iso8601.dateSeparator(.omitted).timeSeparator(.omitted))
                let names = (1...).lazy.map { attempt in
                    "\(file.directory)/\(stem).\(why)-\(when)\(attempt == 1 ? "" : "-\(attempt)").json"
                }
                let moved = try FileRename.renameWithoutReplacing(file.path, to: names, durability: durability)
                return URL(fileURLWithPath: moved, isDirectory: false)
            }
        } catch let error as PersistenceError where error.isMissingDirectory {
            throw failure(.fileNotFound)
        }
    }
}
