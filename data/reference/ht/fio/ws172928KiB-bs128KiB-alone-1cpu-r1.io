rchar: 43105496049
wchar: 13661
syscr: 329088
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
