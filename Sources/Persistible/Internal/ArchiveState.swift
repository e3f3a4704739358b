import Foundation

/// What one version of a file holds: its identity, its bytes and the values they decode to.
///
/// A save needs all of it: the values to answer loads, a set of them for the duplicate check, and the bytes to
/// append to without encoding the existing values again.
struct ArchiveState<Value: Hashable> {
    var identity: FileIdentity
    var bytes: Data
    var values: [Value]
    /// Whether the file holds one value rather than an array of one.
    var isSingleValue: Bool
    /// The values as a set, made by the first save that needs it.
    var members: Set<Value>?
    /// Each record's position by identity, made by the first store write that needs it.
    var positions: [AnyHashable: Int]?

    var contents: PersistenceData<Value> {
        isSingleValue ? .single(values[0]) : .array(values)
    }
}
