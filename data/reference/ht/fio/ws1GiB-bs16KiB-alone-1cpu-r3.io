rchar: 29339184218
wchar: 13663
syscr: 1790955
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
