rchar: 25017601005
wchar: 13663
syscr: 6108007
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
