import Foundation

/// The last known state of each file in this process, so that an operation need not read and decode what the
/// previous one already knew.
///
/// An entry is used only after checking, on every operation, that the file's identity (device, inode, size,
/// modification time) is still the one the entry was made from; saves check while holding the file's lock. Any
/// save replaces the file with a new inode, so a save by another process, or by another handle in this one,
/// makes the entry stale and the file is read again. When the new file only appends values to the entry's, as
/// another process's save does, only those values are decoded.
///
/// An entry costs about the file's size in bytes, plus the decoded values, plus a hash set of them once a save
/// has needed one. Types opt out with ``Persistible/cachesArchive``; ``Persistible/clearArchiveCache()`` frees an
/// entry.
enum ArchiveCache {
    /// One entry per file and type. The decoder is checked rather than keyed, so that a type that makes a new
    /// decoder for each operation replaces its entry instead of adding one per decoder.
    struct Key: Hashable, Sendable {
        var path: String
        var type: ObjectIdentifier
    }

    private static let entries = Locked<[Key: Entry]>([:])

    /// The key for an archive, or `nil` when its values must not be cached.
    ///
    /// Values of class types are never cached: handing the same instances to every caller would share mutable
    /// state between threads behind their backs.
    static func key<Value>(path: String, type: Value.Type) -> Key? {
        guard !(type is AnyObject.Type) else { return nil }
        return Key(path: path, type: ObjectIdentifier(type))
    }

    /// The cached state for `key`, as `decoder` made it; the caller checks whether the file is still the one it
    /// was made from, or how it has changed since.
    static func state<Value>(for key: Key, decoder: JSONDecoder, as type: Value.Type) -> Snapshot<Value>? {
        entries.withLock { entries in
            guard let entry = entries[key], entry.decoder === decoder else { return nil }
            return entry.state as? Snapshot<Value>
        }
    }

    /// Removes and returns the cached state for `key`, so that the caller holds the only reference to its storage
    /// and can change it in place.
    static func take<Value>(for key: Key, decoder: JSONDecoder, as type: Value.Type) -> Snapshot<Value>? {
        entries.withLock { entries in
            guard let entry = entries.removeValue(forKey: key), entry.decoder === decoder else { return nil }
            return entry.state as? Snapshot<Value>
        }
    }

    static func store<Value>(_ state: Snapshot<Value>, for key: Key, decoder: JSONDecoder) {
        entries.withLock { $0[key] = Entry(state: state, decoder: decoder) }
    }

    static func remove(path: String) {
        entries.withLock { entries in
            for key in entries.keys where key.path == path {
                entries[key] = nil
            }
        }
    }

    static func removeAll() {
        entries.withLock { $0.removeAll() }
    }
}

extension ArchiveCache {
    /// One archive's state, its type erased so that archives of every type share one table.
    ///
    /// `Snapshot` is a value: storing it copies it, reading it out copies it again, and its arrays and data are
    /// copy-on-write. Only values of non-class types are stored (see `key(path:type:)`), so no reference is
    /// shared between the threads that take copies.
    struct Entry: @unchecked Sendable {
        var state: Any
        /// The decoder that made `state`; another decoder may read the same bytes differently.
        var decoder: JSONDecoder
    }
}
