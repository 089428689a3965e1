rchar: 117599177169
wchar: 5988
syscr: 897400
syscw: 3
read_bytes: 0
write_bytes: 53248
cancelled_write_bytes: 0
