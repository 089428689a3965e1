rchar: 34681564105
wchar: 13663
syscr: 2117007
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
