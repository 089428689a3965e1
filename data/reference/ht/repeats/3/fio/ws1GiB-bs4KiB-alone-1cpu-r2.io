rchar: 17119370225
wchar: 13663
syscr: 4179727
syscw: 5
read_bytes: 49152
write_bytes: 8192
cancelled_write_bytes: 0
