rchar: 48823643110
wchar: 13662
syscr: 372713
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
