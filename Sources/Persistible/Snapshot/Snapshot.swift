import Foundation

/// What one version of a file holds: its identity, its bytes and the values they decode to.
///
/// A save needs all of it: the values to answer loads, a set of them for the duplicate check, and the bytes to
/// append to without encoding the existing values again.
struct Snapshot<Value: Hashable> {
    var identity: FileIdentity
    var bytes: Data {
        didSet { recordRanges = nil }
    }
    var values: [Value]
    /// Whether the file holds one value rather than an array of one.
    var isSingleValue: Bool
    /// Whether `values` are what decoding `bytes` gives, rather than the values a save was given, which differ
    /// for a type whose encoding loses something, such as a date's fractions of a second.
    var valuesAreDecoded: Bool
    /// The values as a set, made by the first save that needs it.
    var members: Set<Value>?
    /// Each record's position by identity, made by the first write that needs it.
    var index: IdentityIndex?
    /// The records that are not stored in the current format, because they needed a default or a migration: the
    /// next write stores them anew, so it cannot splice onto bytes that hold them.
    var stale = IndexSet()
    /// The stale records that were migrated from an older type. The others only needed a default: their stored
    /// bytes hold every key they held, so writing them anew carries over the keys their type does not know.
    var migrated = IndexSet()
    /// Where each record lies in `bytes`, once a rewrite has needed to know; forgotten whenever `bytes` change.
    var recordRanges: [Range<Int>]?
    /// The positions, in the file's array, of the records no version of the type reads, which `values` skips and
    /// writes keep as stored (see ``Persistible/archiveSkipsUnreadableRecords``). `stale`, `migrated` and
    /// `recordRanges` count every record of the file, these included; `values` and `index` only the others.
    var unreadable = IndexSet()

    /// How many records the file's array holds, those no version reads included.
    var storedCount: Int { values.count + unreadable.count }

    var contents: PersistenceData<Value> {
        isSingleValue ? .single(values[0]) : .array(values)
    }
}

extension Snapshot where Value: Codable {
    /// Adds values that were just written as `encoded`, after the others.
    ///
    /// A few values are decoded from `encoded`, so that the state holds what a later decode of the file gives,
    /// as a type whose encoding loses something needs; more than ``Archive/decodedAfterWriteLimit`` are added as
    /// given, and the state no longer counts as decoded.
    mutating func append(_ written: [Value], decodedFrom encoded: Data, by archive: Archive<Value>) {
        guard valuesAreDecoded, written.count <= Archive<Value>.decodedAfterWriteLimit,
            let decoded = isSingleValue
                ? (try? archive.decoder.decode(Value.self, from: encoded)).map({ [$0] })
                : try? archive.decoder.decode([Value].self, from: encoded),
            decoded.count == written.count
        else {
            // Shared rather than copied when the state held no values yet, as after a first save.
            if values.isEmpty { values = written } else { values += written }
            valuesAreDecoded = false
            return
        }
        if decoded != written {
            // The set and the index were made from the values as given; they are made again from the decoded ones
            // when needed.
            members = nil
            index = nil
        }
        values += decoded
    }
}
