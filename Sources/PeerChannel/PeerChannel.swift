// PeerChannel module
