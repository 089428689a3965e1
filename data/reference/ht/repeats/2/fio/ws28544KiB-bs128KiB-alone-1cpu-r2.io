rchar: 43222805472
wchar: 13661
syscr: 329982
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
