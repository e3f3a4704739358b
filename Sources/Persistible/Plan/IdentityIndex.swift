/// Where each record of a file stands, by identity: the first position of each identity, and the identities that
/// are stored more than once.
///
/// This package never stores two records with one identity, but a file written by an older version, by hand or by
/// another tool may; `repeated` lets a change find and remove the later ones without searching every record.
struct IdentityIndex {
    private var first: [AnyHashable: Int]
    /// The identities stored more than once: usually none.
    private(set) var repeated: Set<AnyHashable>

    /// An index of no records.
    init() {
        first = [:]
        repeated = []
    }

    init<Object>(_ records: [Object], identity: RecordIdentity<Object>) {
        first = [:]
        first.reserveCapacity(records.count)
        repeated = []
        var position = 0
        for record in records {
            note(identity.of(record), at: position)
            position += 1
        }
    }

    /// The position of the first record with this identity.
    subscript(key: AnyHashable) -> Int? {
        first[key]
    }

    /// Records that a record with this identity now stands at `position`, after every other.
    mutating func note(_ key: AnyHashable, at position: Int) {
        if first[key] == nil {
            first[key] = position
        } else {
            repeated.insert(key)
        }
    }
}
