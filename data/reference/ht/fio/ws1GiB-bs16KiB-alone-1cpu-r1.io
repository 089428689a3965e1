rchar: 36670499755
wchar: 13663
syscr: 2238403
syscw: 5
read_bytes: 77824
write_bytes: 16384
cancelled_write_bytes: 0
