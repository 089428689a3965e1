rchar: 27461012396
wchar: 13663
syscr: 6704542
syscw: 5
read_bytes: 8192
write_bytes: 12288
cancelled_write_bytes: 0
