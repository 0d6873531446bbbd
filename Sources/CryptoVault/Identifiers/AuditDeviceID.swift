/// The audit device id: the 16 random bytes migration 3 put in vault_meta 'device_id', carried in the
/// `device` field of every entry of this vault's audit log (SECURITY.md §4.7.1, §8.1), and the device
/// that writing versions and edit events are stamped with. It names the vault copy whose log it is,
/// before any device keys exist, and never changes.
///
/// It is not the key-derived `DeviceID` that peers pin: the two are kept apart as types so one is never
/// taken for the other. The vault's own `device.create` entry names both (its `device` is this id, its
/// subject the `DeviceID`), which is how an auditor, and `vaultctl device`, links them.
public typealias AuditDeviceID = TypedIdentifier<AuditDeviceKind>

public enum AuditDeviceKind: IdentifierKind { public static let name = "an audit device id" }
