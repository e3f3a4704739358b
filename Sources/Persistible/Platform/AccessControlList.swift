#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// A file's POSIX access ACL, as Linux stores it in `system.posix_acl_access`: a version (2), then entries of a
/// 16-bit tag, 16-bit permissions and a 32-bit id, little-endian. With one, the mode's group bits show the mask,
/// the most any named user or group gets, not what the owning group gets: `group::---` with a named user granted
/// `rw-` shows 0660. A save that writes a new file keeps the list, or where it cannot, narrows the mode to what the
/// list let the owning group and others do, so that nobody gains access the list denied.
struct AccessControlList {
    let bytes: [UInt8]

    /// The list of the entry at `path`, if it has one.
    static func of(_ path: String, _ system: SystemCalls.Reference) -> AccessControlList? {
        system.calls.accessControlList(path).map(AccessControlList.init)
    }

    /// Gives `file` this list; whether that worked.
    func apply(to file: OpenFile) -> Bool {
        file.system.calls.setAccessControlList(file.descriptor, bytes) == 0
    }

    /// `mode` with its group and other bits cut to what the list lets the owning group and others do; everything
    /// denied where the list cannot be read.
    func narrowing(_ mode: mode_t) -> mode_t {
        var entries: [(tag: UInt16, permissions: mode_t)] = []
        var offset = 4
        while offset + 8 <= bytes.count {
            let tag = UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
            let permissions = mode_t(bytes[offset + 2]) & 0o7
            entries.append((tag, permissions))
            offset += 8
        }
        guard bytes.count >= 4, bytes[0] == 2 else { return mode & ~0o077 }
        func permissions(of tag: UInt16) -> mode_t? { entries.first { $0.tag == tag }?.permissions }
        // ACL_GROUP_OBJ 0x04, ACL_MASK 0x10, ACL_OTHER 0x20.
        let group = (permissions(of: 0x04) ?? 0) & (permissions(of: 0x10) ?? 0o7)
        let other = permissions(of: 0x20) ?? 0
        return (mode & ~0o077) | (mode & (group << 3 | other))
    }
}
