// PrivilegedSession module
