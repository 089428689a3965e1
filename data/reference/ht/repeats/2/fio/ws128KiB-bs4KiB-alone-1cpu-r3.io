rchar: 21189262280
wchar: 13662
syscr: 5173352
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
