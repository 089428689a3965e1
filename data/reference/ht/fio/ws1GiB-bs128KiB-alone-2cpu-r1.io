rchar: 89114913824
wchar: 18969
syscr: 680114
syscw: 5
read_bytes: 57344
write_bytes: 24576
cancelled_write_bytes: 0
