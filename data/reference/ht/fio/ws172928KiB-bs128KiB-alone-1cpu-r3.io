rchar: 41158552559
wchar: 13662
syscr: 314234
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
