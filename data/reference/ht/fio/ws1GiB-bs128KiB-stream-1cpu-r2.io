rchar: 43481672626
wchar: 13658
syscr: 331957
syscw: 5
read_bytes: 57344
write_bytes: 24576
cancelled_write_bytes: 0
