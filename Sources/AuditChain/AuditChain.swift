// AuditChain module
