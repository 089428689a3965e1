rchar: 150579555332
wchar: 18984
syscr: 1149050
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
