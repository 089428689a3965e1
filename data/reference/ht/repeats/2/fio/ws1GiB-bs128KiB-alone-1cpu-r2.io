rchar: 44261813196
wchar: 13658
syscr: 337909
syscw: 5
read_bytes: 180224
write_bytes: 8192
cancelled_write_bytes: 0
